/**
 * The MCP SDK's own Client over a spawned built CLI (`node bin/svc mcp serve ...`), through a stdio
 * transport that records every byte the server writes: the transcript for the secret scan, and the
 * proof that stdout carries JSON-RPC and nothing else (each line must parse as a JSON-RPC message,
 * or the SDK's ReadBuffer throws).
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ElicitRequestSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BIN, ROOT } from './built-cli.js';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A stdio client transport over `node bin/svc <args>` that keeps the whole transcript. */
export class RecordingTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  /** Every byte the server wrote to stdout, and to stderr; every message the client sent. */
  stdout = '';
  stderr = '';
  sent: string[] = [];
  /** Both directions in order: what the client sent (→) and each message the server wrote (←). */
  exchange: Array<{ dir: '→' | '←'; message: JSONRPCMessage }> = [];
  /** Lines of stdout that were not JSON-RPC. */
  strays: string[] = [];
  child!: ChildProcessWithoutNullStreams;
  exited!: Promise<Exit>;
  readonly #buffer = new ReadBuffer();

  constructor(
    readonly args: string[],
    readonly env: Record<string, string>,
  ) {}

  async start(): Promise<void> {
    this.child = spawn(process.execPath, [BIN, ...this.args], { cwd: ROOT, env: this.env, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.child.once('exit', (code, signal) => resolve({ code, signal })));
    this.child.stderr.on('data', (chunk: Buffer) => (this.stderr += chunk.toString('utf8')));
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.stdout += chunk.toString('utf8');
      this.#buffer.append(chunk);
      for (;;) {
        let message: JSONRPCMessage | null;
        try {
          message = this.#buffer.readMessage();
        } catch (err) {
          this.strays.push(String(err));
          continue;
        }
        if (!message) break;
        this.exchange.push({ dir: '←', message });
        this.onmessage?.(message);
      }
    });
    this.child.on('error', (err) => this.onerror?.(err));
    void this.exited.then(() => this.onclose?.());
    await new Promise<void>((resolve, reject) => {
      this.child.once('spawn', resolve);
      this.child.once('error', reject);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const line = serializeMessage(message);
    this.sent.push(line);
    this.exchange.push({ dir: '→', message });
    if (!this.child.stdin.writable) throw new Error('the server has exited');
    this.child.stdin.write(line);
  }

  /** The MCP stdio shutdown: close the server's stdin, then wait for it to exit. */
  async close(): Promise<void> {
    this.child.stdin.end();
    await this.exited;
  }

  /** Everything both sides said: for the secret scan. */
  transcript(): string[] {
    return [this.stdout, this.stderr, ...this.sent];
  }
}

export type Elicit = 'accept' | 'decline' | 'cancel';

export interface McpSession {
  client: Client;
  transport: RecordingTransport;
  /** Elicitation requests the server sent, with their messages. */
  elicitations: string[];
}

/**
 * Starts `svc <args>` and connects the SDK's Client. With `elicit`, the client declares the
 * elicitation capability and answers every request so (accept answers confirm: true); without it,
 * the client cannot elicit.
 */
export async function connectMcp(args: string[], env: Record<string, string>, opts: { elicit?: Elicit; clientName?: string } = {}): Promise<McpSession> {
  const transport = new RecordingTransport(args, env);
  const client = new Client({ name: opts.clientName ?? 'svc-e2e', version: '1.0.0' }, { capabilities: opts.elicit ? { elicitation: { form: {} } } : {} });
  const elicitations: string[] = [];
  if (opts.elicit) {
    const answer = opts.elicit;
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      elicitations.push(request.params.message);
      return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: answer };
    });
  }
  try {
    await client.connect(transport);
  } catch (err) {
    await transport.close().catch(() => {});
    throw new Error(`svc ${args.join(' ')} did not start: ${String(err)}\nstderr:\n${transport.stderr}`);
  }
  return { client, transport, elicitations };
}
