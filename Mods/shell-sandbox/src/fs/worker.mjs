// The file worker: started by the server inside bubblewrap (--sandbox bwrap) with the same view of
// the host as `run` (the workspace read-write, the system read-only), it answers the file tools'
// system calls (ops.mjs) over its stdin and stdout in frames (frames.mjs). A command swapping a
// workspace directory for a symlink can only lead it to what the sandbox contains.
import { encodeFrame, FrameReader } from "./frames.mjs";
import { exists, readRegular, resolveReal, writeRegular } from "./ops.mjs";

async function answer(header, payload) {
  switch (header.op) {
    case "realpath":
      return { value: await resolveReal(header.path) };
    case "exists":
      return { value: await exists(header.path) };
    case "read": {
      const r = await readRegular(header.path, header.max);
      if (r.kind === "file") return { value: { kind: "file" }, payload: r.data };
      return { value: r };
    }
    case "write":
      return { value: await writeRegular(header.path, payload) };
    default:
      throw Object.assign(new Error(`unknown operation ${header.op}`), { code: "EINVAL" });
  }
}

const reader = new FrameReader();
process.stdin.on("data", (chunk) => {
  for (const { header, payload } of reader.push(chunk)) {
    answer(header, payload).then(
      (r) => process.stdout.write(encodeFrame({ id: header.id, ok: true, value: r.value }, r.payload)),
      (e) =>
        process.stdout.write(
          encodeFrame({
            id: header.id,
            ok: false,
            code: e?.code ?? "EUNKNOWN",
            message: String(e?.message ?? e),
          }),
        ),
    );
  }
});
// The server closed the pipe (it stopped): nothing more to do.
process.stdin.on("end", () => process.exit(0));
