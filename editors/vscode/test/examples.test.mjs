// The TextMate grammar on every example ruleset (examples/, examples/market/ included): each
// comment line is a comment, each keyword outside strings and comments is coloured as one, each
// table bar is a separator, and no string runs past its line.
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import textmate from "vscode-textmate";
import oniguruma from "vscode-oniguruma";
import { grammarKeywords } from "../../../web/grammar-keywords.mjs";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const wasm = readFileSync(here("../node_modules/vscode-oniguruma/release/onig.wasm")).buffer;
await oniguruma.loadWASM(wasm);
const registry = new textmate.Registry({
  onigLib: Promise.resolve({
    createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
    createOnigString: (text) => new oniguruma.OnigString(text),
  }),
  loadGrammar: async () => textmate.parseRawGrammar(
    readFileSync(here("../syntaxes/rules.tmLanguage.json"), "utf8"), "rules.tmLanguage.json"),
});
const grammar = await registry.loadGrammar("source.insureops-rules");

function rulesFiles(folder) {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return rulesFiles(path);
    return name.endsWith(".rules") ? [path] : [];
  });
}

const keywords = new Set(grammarKeywords());
const KEYWORD_SCOPES = /keyword|constant\.language|support\.constant\.decision|entity\.name/;
const files = rulesFiles(here("../../../examples"));
assert.ok(files.length > 100, "the examples (examples/market included) are found");
let lines = 0;
for (const file of files) {
  let stack = textmate.INITIAL;
  readFileSync(file, "utf8").split("\n").forEach((line, number) => {
    const where = `${file}:${number + 1}`;
    const result = grammar.tokenizeLine(line, stack);
    stack = result.ruleStack;
    lines += 1;
    for (const token of result.tokens) {
      const text = line.slice(token.startIndex, token.endIndex);
      const scopes = token.scopes.join(" ");
      if (line.trimStart().startsWith("#") && text.trim()) {
        assert.match(scopes, /comment\.line/, `${where}: a comment line is a comment`);
      }
      if (/string|comment/.test(scopes)) continue;
      for (const word of text.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []) {
        if (keywords.has(word) && text.trim() === word && !/property/.test(scopes)) {
          assert.match(scopes, KEYWORD_SCOPES, `${where}: \`${word}\` is coloured as a keyword (${scopes})`);
        }
      }
      if (text === "|") assert.match(scopes, /punctuation\.separator\.table/, `${where}: a table bar`);
    }
    // a new line starts outside any string: strings end at their line's end
    const probe = grammar.tokenizeLine("probe", stack).tokens[0].scopes.join(" ");
    assert.doesNotMatch(probe, /string|comment/, `${where}: a string or comment left open`);
  });
}
console.log(`ok: the grammar on ${files.length} example rulesets (${lines} lines)`);
