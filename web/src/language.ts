// The rules language for CodeMirror: a stream tokenizer (keywords from the grammar, strings,
// numbers, dates, comments, brackets) and a highlight style that works without a theme.
import { StreamLanguage, HighlightStyle } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { KEYWORDS } from "./keywords.generated";

const ATOMS = new Set(["true", "false", "null"]);
const DECISIONS = new Set(["accept", "refer", "decline"]);
const KEYWORD_SET = new Set(KEYWORDS.filter((word) => !ATOMS.has(word)));
const OPERATOR = /^(\?\?|[=!<>]=|\+=|-=|=>|[-+*/%<>=|])/;

export const rulesLanguage = StreamLanguage.define<null>({
  name: "rules",
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match("#")) { stream.skipToEnd(); return "comment"; }
    if (stream.peek() === '"') {
      stream.next();
      let escaped = false, depth = 0, ch: string | void;
      while ((ch = stream.next()) !== undefined && ch !== null) {
        if (escaped) { escaped = false; continue; }
        if (ch === "\\") escaped = true;
        else if (ch === "{") depth++;
        else if (ch === "}" && depth > 0) depth--;
        else if (ch === '"' && depth === 0) break;
      }
      return "string";
    }
    if (stream.match(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?/)) return "number";
    if (stream.match(/^\d(_?\d)*(\.\d(_?\d)*)?/)) {
      stream.match(/^\s*(days?|weeks?|months?|years?)\b/);
      return "number";
    }
    const word = stream.match(/^[A-Za-z_]\w*/) as RegExpMatchArray | null;
    if (word) {
      const text = word[0];
      if (ATOMS.has(text)) return "atom";
      if (DECISIONS.has(text)) return "keyword";
      if (KEYWORD_SET.has(text)) return "keyword";
      return /^[A-Z][a-z]/.test(text) ? "typeName" : "variableName";
    }
    if (stream.match(/^[()[\]{}]/)) return "bracket";
    if (stream.match(OPERATOR)) return "operator";
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: "#" }, closeBrackets: { brackets: ["(", "[", "{", '"'] } },
});

export const rulesHighlight = HighlightStyle.define([
  { tag: tags.keyword, color: "#7a1fa2", fontWeight: "600" },
  { tag: tags.string, color: "#1b6e20" },
  { tag: tags.number, color: "#0b5cad" },
  { tag: tags.atom, color: "#a33f00" },
  { tag: tags.comment, color: "#5f6b76", fontStyle: "italic" },
  { tag: tags.typeName, color: "#8a5a00" },
  { tag: tags.bracket, color: "#444" },
  { tag: tags.operator, color: "#444" },
]);
