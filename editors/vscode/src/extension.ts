// The VS Code client of the insureops rules language server: it starts `insureops rules lsp`
// (the command and arguments are settings) over stdio for `.rules` files; everything else
// (diagnostics, completion, hover, definitions, references, rename, outline, semantic tokens,
// formatting) is the server's.
import { ExtensionContext, workspace } from "vscode";
import { LanguageClient, LanguageClientOptions, ServerOptions, TransportKind } from "vscode-languageclient/node";

let client: LanguageClient | undefined;

export async function activate(context: ExtensionContext): Promise<void> {
  const settings = workspace.getConfiguration("insureopsRules");
  const command = settings.get<string>("server.command", "insureops");
  const args = settings.get<string[]>("server.args", ["rules", "lsp"]);
  const serverOptions: ServerOptions = { command, args, transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "insureops-rules" },
      { scheme: "untitled", language: "insureops-rules" },
    ],
  };
  client = new LanguageClient("insureopsRules", "insureops rules", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => void client?.stop() });
  await client.start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}
