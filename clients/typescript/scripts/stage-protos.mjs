// Copies the protos the types are generated from into proto/ (a buf module):
// the API's own (the repository's proto/, or MAZZO_PROTO_DIR) and the two
// google/api files it imports, from the google-proto-files package.
import { cpSync, existsSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(dirname(fileURLToPath(import.meta.url)));
const source = process.env.MAZZO_PROTO_DIR ?? join(here, "..", "..", "proto");
const staged = join(here, "proto");

if (!existsSync(join(source, "mazzo"))) {
  console.error(`no mazzo/ protos in ${source}: set MAZZO_PROTO_DIR to the API's proto folder`);
  process.exit(1);
}
const googleapis = dirname(dirname(dirname(createRequire(import.meta.url).resolve("google-proto-files"))));
rmSync(staged, { recursive: true, force: true });
cpSync(join(source, "mazzo"), join(staged, "mazzo"), { recursive: true });
for (const file of ["annotations.proto", "http.proto"]) {
  cpSync(join(googleapis, "google", "api", file), join(staged, "google", "api", file));
}
