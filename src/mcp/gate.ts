/**
 * A catalog tool with a human gate (api-v1.md 4.3 rule 3) runs only after a person said yes through
 * the client's elicitation. The server (server.ts) implements this over the SDK; tools see only this.
 */
export interface Gate {
  /** Whether the client can ask the person (it declared the elicitation capability). */
  readonly canAsk: boolean;
  /** Asks the person; true only when they accepted and confirmed. */
  ask(message: string, signal: AbortSignal): Promise<'accepted' | 'declined'>;
}

/** What a gated tool returns where nobody could be asked: what a person must confirm, and how. */
export interface ConfirmationChallenge {
  humanGate: string;
  catalogTool: string;
  message: string;
  /** The command a person runs to do it themselves, outside the agent. */
  command: string;
}
