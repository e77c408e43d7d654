// Runs the stand-in game as its own process (for the benchmark): `tsx test/stand-in-cli.ts --flood N --ring N`.
// Prints one JSON line {port, password, map_id} once it listens; exits when stdin closes.
import { StandInGame } from "./stand-in-game.ts";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
};
const game = await StandInGame.start({ ringCapacity: arg("ring", 8000) });
game.flood(arg("flood", 0), "chat");
process.stdout.write(`${JSON.stringify({ port: game.port, password: game.password, map_id: game.mapId })}\n`);
process.stdin.resume();
process.stdin.on("end", () => {
  void game.close().then(() => process.exit(0));
});
