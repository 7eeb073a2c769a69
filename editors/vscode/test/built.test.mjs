// The built extension: the client bundle exists where package.json says, starts the
// language server with `rules lsp`, and the grammar and language are contributed as built.
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { grammarKeywords } from "../../../web/grammar-keywords.mjs";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const manifest = JSON.parse(readFileSync(here("../package.json"), "utf8"));
const main = here(`../${manifest.main}`);
assert.ok(existsSync(main), `${manifest.main} is missing: run \`npm run build\``);
assert.ok(statSync(main).size > 10_000, "the client bundle is too small to hold the language client");
const bundle = readFileSync(main, "utf8");
assert.match(bundle, /"rules","lsp"/, "the client starts `insureops rules lsp`");
assert.match(bundle, /insureops-rules/, "the client serves the insureops-rules language");
assert.doesNotMatch(bundle, /require\("vscode-languageclient/, "the language client is bundled");

const [language] = manifest.contributes.languages;
assert.deepEqual(language.extensions, [".rules"]);
const [grammar] = manifest.contributes.grammars;
const textMate = JSON.parse(readFileSync(here(`../${grammar.path}`), "utf8"));
assert.equal(textMate.scopeName, grammar.scopeName);
const coloured = JSON.stringify(textMate);
for (const word of grammarKeywords()) {
  assert.ok(coloured.includes(word), `the grammar does not colour the keyword \`${word}\``);
}
console.log(`ok: ${manifest.main} (${statSync(main).size} bytes), ${grammarKeywords().length} keywords coloured`);
