"""`insureops rules pull` / `push`: a folder of rules files kept in step with a workspace.

Pull writes each rule's current source as `NAME.rules` and its case set `default` as
`NAME.cases.jsonl`, and records their ids and versions in the manifest (rules_files.py); it
never overwrites a file edited since the last pull or push (unless `--force`). Push saves each
changed file as a new version based on the version the manifest records (If-Match): when
someone saved meanwhile, the service refuses it (409 version_conflict) and push says so,
leaving that file unpushed. Both exit 1 when anything was refused.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from insureops.platform.cli.rules_client import Workspace, WorkspaceError
from insureops.platform.cli.rules_files import (
    CASE_SET_NAME,
    RULES_SUFFIX,
    Entry,
    Manifest,
    ManifestError,
    Synced,
    cases_file,
    cases_lines,
    digest,
    parse_cases,
    read_manifest,
    rules_file,
    write_manifest,
    write_text,
)


def _connect(url: str | None, key: str | None) -> Workspace:
    from insureops.platform.config import RulesClientSettings

    settings = RulesClientSettings.from_env(url=url, api_key=key)
    if not settings.url or settings.api_key is None:
        click.echo("error: give the service and a key: --url and --key, or INSUREOPS_URL and "
                   "INSUREOPS_API_KEY", err=True)
        sys.exit(2)
    try:
        return Workspace(settings.url, settings.api_key.get_secret_value())
    except WorkspaceError as exc:
        click.echo(f"error: {exc.message}", err=True)
        sys.exit(2)


def _manifest(folder: Path) -> Manifest:
    try:
        return read_manifest(folder)
    except ManifestError as exc:
        click.echo(f"error: {exc}", err=True)
        sys.exit(1)


def _connection_options(func):
    func = click.option("--key", envvar=None, default=None, metavar="KEY",
                        help="An API key of the workspace (default: INSUREOPS_API_KEY).")(func)
    return click.option("--url", default=None, metavar="URL",
                        help="The service (default: INSUREOPS_URL).")(func)


def _local(path: Path) -> str | None:
    return path.read_text(encoding="utf-8") if path.exists() else None


def _edited(text: str | None, synced: Synced | None, incoming: str) -> bool:
    """The file holds text that neither the last sync nor the workspace has."""
    if text is None or text == incoming:
        return False
    return synced is None or digest(text) != synced.sha256


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@_connection_options
@click.option("--force", is_flag=True, help="Overwrite files edited since the last sync.")
@click.option("--published", is_flag=True, help="Write each rule's published version "
              "instead (a snapshot to compare with, e.g. in CI); no manifest is written.")
def pull(folder: Path, url: str | None, key: str | None, force: bool, published: bool) -> None:
    """Write the workspace's rules (and their `default` case sets) into FOLDER."""
    workspace = _connect(url, key)
    folder.mkdir(parents=True, exist_ok=True)
    manifest = Manifest() if published else _manifest(folder)
    by_id = {entry.rule.id: name for name, entry in manifest.rulesets.items()}
    kept = written = 0
    try:
        for summary in workspace.rules():
            if summary["status"] == "archived" or (published
                                                   and summary["published_version"] is None):
                continue
            answer = workspace.rule(summary["id"],
                                    summary["published_version"] if published else None)
            name = rules_file(answer.payload["name"])
            old = by_id.get(summary["id"])
            entry = manifest.rulesets.pop(old) if old else None
            source = answer.payload["version"]["source"]
            path = folder / name
            if not force and _edited(_local(path), entry and entry.rule, source):
                click.echo(f"kept {name}: edited here since the last sync (push it, or pull "
                           "--force to overwrite)", err=True)
                kept += 1
                if entry is not None:
                    manifest.rulesets[name] = entry
                continue
            write_text(path, source)
            written += 1
            if old and old != name:
                _drop_renamed(folder, old, entry)
            rule = Synced(summary["id"], answer.version or summary["current_version"],
                          digest(source))
            cases = _pull_cases(workspace, folder, name, summary["id"], entry, force)
            manifest.rulesets[name] = Entry(rule, cases)
            click.echo(f"pulled {name} (version {answer.payload['version']['number']})")
    except WorkspaceError as exc:
        click.echo(f"error: {exc.message} [{exc.code}]", err=True)
        sys.exit(1)
    if not published:
        manifest.url = workspace.url
        write_manifest(folder, manifest)
    click.echo(f"{written} ruleset(s) pulled into {folder}" + (f", {kept} kept" if kept else ""))
    if kept:
        sys.exit(1)


def _drop_renamed(folder: Path, old: str, entry: Entry | None) -> None:
    """The ruleset was renamed in the workspace: its files under the old name go, unless they
    were edited here (then they stay, for the author to look at)."""
    for path, synced in ((folder / old, entry and entry.rule),
                         (folder / cases_file(old), entry and entry.cases)):
        text = _local(path)
        if text is not None and synced is not None and digest(text) == synced.sha256:
            path.unlink()
            click.echo(f"removed {path.name} (renamed in the workspace)")


def _pull_cases(workspace: Workspace, folder: Path, name: str, rule_id: str,
                entry: Entry | None, force: bool) -> Synced | None:
    found = [s for s in workspace.case_sets(rule_id) if s["name"] == CASE_SET_NAME]
    if not found:
        return None
    answer = workspace.case_set(rule_id, found[0]["id"])
    text = cases_lines(answer.payload["cases"])
    path = folder / cases_file(name)
    synced = entry.cases if entry else None
    if not force and _edited(_local(path), synced, text):
        click.echo(f"kept {path.name}: edited here since the last sync", err=True)
        return synced
    write_text(path, text)
    return Synced(found[0]["id"], answer.version or found[0]["version"], digest(text))


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, exists=True, path_type=Path))
@_connection_options
def push(folder: Path, url: str | None, key: str | None) -> None:
    """Save FOLDER's changed rules files (and cases files) in the workspace as new versions.

    Each change names the version it is based on (the manifest's); a rule saved meanwhile by
    someone else is a conflict: that file is not pushed and the command exits 1.
    """
    workspace = _connect(url, key)
    manifest = _manifest(folder)
    refused = pushed = 0
    for path in sorted(folder.glob(f"*{RULES_SUFFIX}")):
        try:
            changed = _push_one(workspace, folder, manifest, path)
        except WorkspaceError as exc:
            click.echo(_explain(path.name, exc, manifest.rulesets.get(path.name)), err=True)
            refused += 1
            continue
        finally:
            write_manifest(folder, manifest)  # what was saved is recorded at once
        pushed += changed
    click.echo(f"{pushed} file(s) pushed" + (f", {refused} refused" if refused else ""))
    if refused:
        sys.exit(1)


def _push_one(workspace: Workspace, folder: Path, manifest: Manifest, path: Path) -> int:
    source = path.read_text(encoding="utf-8")
    entry = manifest.rulesets.get(path.name)
    changed = 0
    if entry is None:
        answer = workspace.create_rule(source)
        entry = Entry(Synced(answer.payload["id"], answer.payload["current_version"],
                             digest(source)))
        manifest.rulesets[path.name] = entry
        click.echo(f"created {path.name} (version 1)")
        changed = 1
    elif digest(source) != entry.rule.sha256:
        answer = workspace.save_source(entry.rule.id, source, entry.rule.version)
        entry.rule = Synced(entry.rule.id, answer.payload["current_version"], digest(source))
        click.echo(f"pushed {path.name} (version {answer.payload['current_version']})")
        changed = 1
    cases_path = folder / cases_file(path.name)
    if cases_path.exists():
        changed |= _push_cases(workspace, entry, cases_path)
    return changed


def _push_cases(workspace: Workspace, entry: Entry, path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    if entry.cases is not None and digest(text) == entry.cases.sha256:
        return 0
    try:
        cases = parse_cases(text, path)
    except ValueError as exc:
        raise WorkspaceError(0, "invalid_cases", str(exc)) from None
    if entry.cases is None:
        answer = workspace.create_case_set(entry.rule.id, CASE_SET_NAME, cases)
    else:
        answer = workspace.save_cases(entry.rule.id, entry.cases.id, cases, entry.cases.version)
    entry.cases = Synced(answer.payload["id"], answer.payload["version"], digest(text))
    click.echo(f"pushed {path.name} ({len(cases)} case(s), case set version "
               f"{answer.payload['version']})")
    return 1


def _explain(name: str, exc: WorkspaceError, entry: Entry | None) -> str:
    """A refusal in words a rule author acts on."""
    if exc.code == "version_conflict":
        based = f" (this folder is based on version {entry.rule.version})" if entry else ""
        return (f"conflict: {name} was not pushed: the workspace's copy changed since this "
                f"folder last synced{based}. {exc.message}\n  To merge: keep your file aside, "
                f"run `insureops rules pull --force`, reapply your change, then push again.")
    if exc.code == "rule_invalid":
        lines = [f"{name}: not pushed, the ruleset does not check:"]
        lines += [f"  {name}:{d.get('line')}:{d.get('column')}: {d.get('severity')}"
                  f"[{d.get('code')}] {d.get('message')}" for d in exc.details]
        return "\n".join(lines)
    if exc.code == "conflict":
        return (f"conflict: {name} was not pushed: {exc.message} If the workspace's rule is "
                "this one, run `insureops rules pull` first so the folder knows it.")
    return f"error: {name} was not pushed: {exc.message} [{exc.code}]"
