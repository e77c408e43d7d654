// The image installs only what the mod runs on: this drops devDependencies (test tools, some of them
// other workspaces of the repository that no registry has) and bin links (their files are copied
// after the install) from the package.json files given. Used by the Dockerfile and update-lock.sh,
// so the image's lock and the image's install see the same manifests.
import { readFileSync, writeFileSync } from "node:fs";

for (const file of process.argv.slice(2)) {
  const pkg = JSON.parse(readFileSync(file, "utf8"));
  delete pkg.devDependencies;
  delete pkg.bin;
  writeFileSync(file, `${JSON.stringify(pkg, null, 2)}\n`);
}
