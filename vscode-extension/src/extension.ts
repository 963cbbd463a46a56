// Entry point: starts the surface-lint language server and wires the commands; no lint logic here.
import * as vscode from "vscode";

import { LIVE_SETTINGS, RESTART_SETTINGS } from "./core/settings";
import { LaneStatus } from "./laneStatus";
import { registerReview } from "./review/reviewPanels";
import { onPythonInterpreterChange } from "./pythonExtension";
import { epochStamp, ServerController } from "./serverController";

let controller: ServerController | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel("surface-lint", { log: true });
  output.info(`Activated ${epochStamp()}.`); // when VS Code activated the extension (the cold open's timeline)
  const server = new ServerController(context, output);
  controller = server;
  const status = new LaneStatus(server);

  context.subscriptions.push(
    output,
    server,
    status,
    vscode.commands.registerCommand("surfaceLint.restartServer", () => server.restartByUser("asked by the user")),
    vscode.commands.registerCommand("surfaceLint.showOutput", () => output.show(true)),
    vscode.commands.registerCommand("surfaceLint.scoreLane", () => status.showScore()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      const changed = RESTART_SETTINGS.filter((key) => event.affectsConfiguration(key));
      if (changed.length > 0) {
        void server.restart(`${changed.join(", ")} changed`);
        return; // the new server reads every setting afresh
      }
      const live = LIVE_SETTINGS.filter((key) => event.affectsConfiguration(key));
      if (live.length > 0) {
        void server.settingsChanged(live);
      }
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void server.trustGranted();
    }),
  );

  registerReview(context, server); // review: case lenses' links, transcript review, run diff

  const pythonListener = await onPythonInterpreterChange(() => {
    void server.restart("the Python extension's interpreter changed");
  });
  if (pythonListener !== undefined) {
    context.subscriptions.push(pythonListener);
  }

  await server.start();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
  controller = undefined;
}
