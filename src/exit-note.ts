/**
 * One line for a run cut short by a second signal, which main.ts answers with process.exit at once:
 * the restore run keeps it current (what the target's state would be), everything else leaves it empty.
 */
let note: string | undefined;

export function setExitNote(text: string | undefined): void {
  note = text;
}

export function exitNote(): string | undefined {
  return note;
}
