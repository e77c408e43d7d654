// Types of the GObject-introspection modules and gjs globals the Linux shell (main.js) uses, so that `tsc`
// checks main.js (`// @ts-check`). Only what main.js calls is declared, in gjs's calling conventions (out
// arguments come back as arrays, a leading boolean first where GI returns one). Written from the GTK 3,
// GDK 3, GLib/Gio 2, WebKitGTK 4.1, Ayatana AppIndicator 3 and Keybinder 3 references; not generated.

/** gjs's own global: a line on stderr (the shell's log). */
declare function printerr(...text: string[]): void;

declare module "system" {
  const System: { gc(): void; exit(code: number): never };
  export default System;
}

declare module "cairo" {
  namespace cairo {
    class Region {
      unionRectangle(r: { x: number; y: number; width: number; height: number }): void;
    }
  }
  export default cairo;
}

declare module "gi://GLib" {
  namespace GLib {
    /** A source callback: SOURCE_CONTINUE keeps it, SOURCE_REMOVE ends it. */
    type SourceFunc = () => boolean;
    const PRIORITY_DEFAULT: number;
    const PRIORITY_LOW: number;
    const SOURCE_CONTINUE: true;
    const SOURCE_REMOVE: false;
    function timeout_add(priority: number, ms: number, f: SourceFunc): number;
    function timeout_add_seconds(priority: number, s: number, f: SourceFunc): number;
    function source_remove(id: number): boolean;
    function getenv(name: string): string | null;
    function base64_encode(data: Uint8Array): string;
    enum UriFlags {
      NONE = 0,
    }
    class Variant {
      constructor(signature: string, value: unknown[]);
      deepUnpack(): unknown;
    }
    class Uri {
      static parse(uri: string, flags: UriFlags): Uri;
      static resolve_relative(base: string | null, ref: string, flags: UriFlags): string;
      get_scheme(): string;
      get_host(): string | null;
      get_port(): number;
    }
  }
  export default GLib;
}

declare module "gi://Gio" {
  import type GLib from "gi://GLib";

  namespace Gio {
    class AsyncResult {}
    class OutputStream {}
    class InputStream {}
    class UnixOutputStream extends OutputStream {
      constructor(p: { fd: number; close_fd: boolean });
    }
    class UnixInputStream extends InputStream {
      constructor(p: { fd: number; close_fd: boolean });
    }
    class DataOutputStream {
      constructor(p: { base_stream: OutputStream });
      put_string(s: string, cancellable: null): boolean;
      flush(cancellable: null): boolean;
    }
    class DataInputStream {
      constructor(p: { base_stream: InputStream });
      read_line_async(
        priority: number,
        cancellable: null,
        callback: (source: DataInputStream, res: AsyncResult) => void,
      ): void;
      read_line_finish_utf8(res: AsyncResult): [string | null, number];
    }
    enum BusType {
      SESSION = 2,
    }
    enum DBusCallFlags {
      NONE = 0,
    }
    class DBusConnection {
      call_sync(
        busName: string,
        objectPath: string,
        interfaceName: string,
        method: string,
        parameters: GLib.Variant,
        replyType: null,
        flags: DBusCallFlags,
        timeoutMs: number,
        cancellable: null,
      ): GLib.Variant;
    }
    function bus_get_sync(type: BusType, cancellable: null): DBusConnection;
    namespace AppInfo {
      function launch_default_for_uri_async(
        uri: string,
        context: null,
        cancellable: null,
        callback: null,
      ): void;
    }
  }
  export default Gio;
}

declare module "gi://Gdk?version=3.0" {
  namespace Gdk {
    const CURRENT_TIME: number;
    interface Rectangle {
      x: number;
      y: number;
      width: number;
      height: number;
    }
    enum ModifierType {
      BUTTON1_MASK = 256,
    }
    class Visual {}
    class Device {}
    class Seat {
      get_pointer(): Device;
    }
    class Monitor {
      get_geometry(): Rectangle;
      get_workarea(): Rectangle;
      get_model(): string | null;
      is_primary(): boolean;
    }
    class Window {
      get_device_position(device: Device): [Window | null, number, number, ModifierType];
      input_shape_combine_region(region: import("cairo").default.Region, dx: number, dy: number): void;
      move_resize(x: number, y: number, width: number, height: number): void;
    }
    class Screen {
      static get_default(): Screen;
      is_composited(): boolean;
      get_rgba_visual(): Visual | null;
      get_root_window(): Window;
      connect(signal: "monitors-changed" | "composited-changed", f: () => void): number;
    }
    class Display {
      static get_default(): Display | null;
      get_default_screen(): Screen;
      get_default_seat(): Seat;
      get_n_monitors(): number;
      get_monitor(i: number): Monitor;
      get_monitor_at_window(w: Window): Monitor;
      connect(signal: "monitor-added" | "monitor-removed", f: () => void): number;
    }
    class Event {
      get_button(): [boolean, number];
      get_coords(): [boolean, number, number];
      get_root_coords(): [boolean, number, number];
      get_time(): number;
    }
    class RGBA {
      constructor(p: { red: number; green: number; blue: number; alpha: number });
    }
    class Pixbuf {
      save_to_bufferv(type: string, keys: string[], values: string[]): [boolean, Uint8Array];
    }
    function pixbuf_get_from_window(
      w: Window,
      x: number,
      y: number,
      width: number,
      height: number,
    ): Pixbuf | null;
  }
  export default Gdk;
}

declare module "gi://Gtk?version=3.0" {
  import type Gdk from "gi://Gdk?version=3.0";

  namespace Gtk {
    const STYLE_PROVIDER_PRIORITY_APPLICATION: number;
    function init(argv: null): void;
    function main(): void;
    function main_quit(): void;
    enum WindowType {
      TOPLEVEL = 0,
    }
    class CssProvider {
      load_from_data(css: string): boolean;
    }
    class StyleContext {
      static add_provider_for_screen(screen: Gdk.Screen, provider: CssProvider, priority: number): void;
      add_class(name: string): void;
    }
    class Widget {
      show_all(): void;
      hide(): void;
      destroy(): void;
      realize(): void;
      get_window(): Gdk.Window | null;
      get_style_context(): StyleContext;
    }
    class Window extends Widget {
      constructor(p: { type: WindowType; title: string });
      set_title(title: string): void;
      set_wmclass(name: string, cls: string): void;
      set_default_size(width: number, height: number): void;
      set_keep_above(on: boolean): void;
      set_skip_taskbar_hint(on: boolean): void;
      set_skip_pager_hint(on: boolean): void;
      set_visual(visual: Gdk.Visual | null): void;
      set_app_paintable(on: boolean): void;
      set_decorated(on: boolean): void;
      set_accept_focus(on: boolean): void;
      add(child: Widget): void;
      move(x: number, y: number): void;
      present(): void;
      present_with_time(time: number): void;
      get_position(): [number, number];
      get_size(): [number, number];
      resize(width: number, height: number): void;
      begin_move_drag(button: number, rootX: number, rootY: number, time: number): void;
      connect(
        signal: "configure-event" | "map-event" | "delete-event" | "focus-in-event" | "focus-out-event",
        f: () => boolean,
      ): number;
    }
    class StatusIcon {
      static new_from_icon_name(name: string): StatusIcon;
      set_visible(on: boolean): void;
      is_embedded(): boolean;
    }
    class MenuItem extends Widget {
      constructor(p?: { label: string });
      set_label(label: string): void;
      connect(signal: "activate", f: () => void): number;
    }
    class SeparatorMenuItem extends MenuItem {}
    class Menu extends Widget {
      append(item: MenuItem): void;
      attach_to_widget(widget: Widget, detacher: null): void;
      popup_at_pointer(event: Gdk.Event | null): void;
    }
  }
  export default Gtk;
}

declare module "gi://WebKit2?version=4.1" {
  import type Gdk from "gi://Gdk?version=3.0";
  import type Gtk from "gi://Gtk?version=3.0";

  namespace WebKit2 {
    enum LoadEvent {
      STARTED = 0,
      REDIRECTED = 1,
      COMMITTED = 2,
      FINISHED = 3,
    }
    enum PolicyDecisionType {
      NAVIGATION_ACTION = 0,
      NEW_WINDOW_ACTION = 1,
      RESPONSE = 2,
    }
    /** A JavaScriptCore value: what the page posted. */
    class JSCValue {
      is_string(): boolean;
      to_string(): string;
      to_json(indent: number): string;
    }
    class JavascriptResult {
      get_js_value(): JSCValue;
    }
    class UserContentManager {
      register_script_message_handler(name: string): boolean;
      connect(
        signal: `script-message-received::${string}`,
        f: (m: UserContentManager, r: JavascriptResult) => void,
      ): number;
    }
    class Settings {
      set_enable_webgl(on: boolean): void;
      set_enable_developer_extras(on: boolean): void;
      set_enable_write_console_messages_to_stdout(on: boolean): void;
      set_enable_media_stream(on: boolean): void;
      set_enable_mock_capture_devices(on: boolean): void;
    }
    class PermissionRequest {
      allow(): void;
      deny(): void;
    }
    class UserMediaPermissionRequest extends PermissionRequest {
      readonly is_for_audio_device: boolean;
      readonly is_for_video_device: boolean;
    }
    class URIRequest {
      get_uri(): string;
    }
    class NavigationAction {
      get_request(): URIRequest;
    }
    class PolicyDecision {
      ignore(): void;
      get_navigation_action(): NavigationAction;
    }
    class WebView extends Gtk.Widget {
      constructor(p: { user_content_manager: UserContentManager });
      get_settings(): Settings;
      set_background_color(rgba: Gdk.RGBA): void;
      load_uri(uri: string): void;
      get_uri(): string | null;
      run_javascript(script: string, cancellable: null, callback: null): void;
      connect(
        signal: "button-press-event" | "motion-notify-event",
        f: (v: WebView, ev: Gdk.Event) => boolean,
      ): number;
      connect(signal: "button-release-event" | "context-menu", f: () => boolean): number;
      connect(signal: "load-changed", f: (v: WebView, ev: LoadEvent) => void): number;
      connect(
        signal: "load-failed",
        f: (v: WebView, ev: LoadEvent, uri: string, err: Error) => boolean,
      ): number;
      connect(signal: "permission-request", f: (v: WebView, request: PermissionRequest) => boolean): number;
      connect(
        signal: "decide-policy",
        f: (v: WebView, d: PolicyDecision, type: PolicyDecisionType) => boolean,
      ): number;
    }
  }
  export default WebKit2;
}

declare module "gi://AyatanaAppIndicator3?version=0.1" {
  import type Gtk from "gi://Gtk?version=3.0";

  namespace AppIndicator3 {
    enum IndicatorCategory {
      APPLICATION_STATUS = 0,
    }
    enum IndicatorStatus {
      PASSIVE = 0,
      ACTIVE = 1,
    }
    class Indicator {
      // biome-ignore lint/suspicious/noMisleadingInstantiator: GI names this C constructor `new`.
      static new(id: string, icon: string, category: IndicatorCategory): Indicator;
      set_title(title: string): void;
      set_status(status: IndicatorStatus): void;
      set_icon_full(icon: string, description: string): void;
      set_menu(menu: Gtk.Menu): void;
    }
  }
  export default AppIndicator3;
}

declare module "gi://Keybinder?version=3.0" {
  namespace Keybinder {
    function init(): void;
    function bind(accelerator: string, handler: () => void): boolean;
    function get_current_event_time(): number;
  }
  export default Keybinder;
}
