import { createConnection, isIP, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import { BoundedMessages, type MessageBounds } from './bounded-messages.js';

/** What TLS a connection asks for: libpq's sslmode as a plan (tls.ts). */
export interface TlsPlan {
  /** false: no SSLRequest at all (sslmode disable or allow, or a Unix socket). */
  ssl: false | ConnectionOptions;
  /** sslmode=prefer: where the server answers the SSLRequest with 'N', go on without TLS on the same connection, as libpq does. */
  plainFallback: boolean;
}

/** SSLRequest: length 8, then the code 1234.5679 (the protocol's 80877103). */
const SSL_REQUEST = Buffer.from([0, 0, 0, 8, 4, 210, 22, 47]);

/**
 * The byte stream node-postgres talks over, given to pg.Client through its public `stream` option
 * (a factory). pg is told `ssl: false`: the SSLRequest and the TLS handshake happen here, so that
 * every message from the server, TLS or not, passes through BoundedMessages before pg-protocol's
 * parser (which buffers a message whole) sees it. pg calls connect(port, host), or connect(path)
 * for a Unix socket, then writes its startup message once this emits 'connect'.
 */
export class BoundedWire extends Duplex {
  #socket: Socket | undefined;
  #inner: Duplex | undefined;

  constructor(
    private readonly plan: TlsPlan,
    /** null: messages pass as they come (svc's own queries, whose answers svc asked for). */
    private readonly bounds: MessageBounds | null,
  ) {
    super();
  }

  connect(port: number | string, host?: string): this {
    const socket = typeof port === 'string' ? createConnection(port) : createConnection(port, host);
    this.#socket = socket;
    socket.setNoDelay(true);
    socket.on('error', (err) => this.destroy(err));
    socket.once('connect', () =>
      this.plan.ssl && typeof port === 'number' ? this.#negotiate(socket, this.plan.ssl, host ?? 'localhost') : this.#ready(socket),
    );
    return this;
  }

  #negotiate(socket: Socket, ssl: ConnectionOptions, host: string): void {
    socket.once('data', (answer: Buffer) => {
      socket.pause();
      if (answer[0] === 0x53 && answer.length === 1) {
        const secure = tlsConnect({ ...ssl, socket, host, ...(isIP(host) ? {} : { servername: host }) });
        secure.on('error', (err) => this.destroy(err));
        secure.once('secureConnect', () => this.#ready(secure));
      } else if (answer[0] === 0x4e && answer.length === 1 && this.plan.plainFallback) {
        this.#ready(socket);
      } else if (answer[0] === 0x4e && answer.length === 1) {
        this.destroy(new Error('server does not support SSL, but SSL was required'));
      } else {
        this.destroy(new Error('received invalid response to SSL negotiation'));
      }
    });
    socket.write(SSL_REQUEST);
  }

  #ready(stream: Duplex): void {
    this.#inner = stream;
    const bounded = this.bounds ? new BoundedMessages(this.bounds, (chunk) => this.push(chunk)) : undefined;
    stream.on('data', (chunk: Buffer) => {
      try {
        if (bounded) bounded.push(chunk);
        else this.push(chunk);
      } catch (err) {
        this.destroy(err as Error);
      }
    });
    stream.on('end', () => this.push(null));
    stream.on('close', () => this.destroy());
    stream.resume();
    this.emit('connect');
  }

  // pg reads every message as it comes; there is no back-pressure to pass on.
  override _read(): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (err?: Error | null) => void): void {
    if (!this.#inner) return done(new Error('not connected'));
    this.#inner.write(chunk, done);
  }

  override _final(done: (err?: Error | null) => void): void {
    this.#inner?.end();
    done();
  }

  override _destroy(err: Error | null, done: (err?: Error | null) => void): void {
    this.#inner?.destroy();
    this.#socket?.destroy();
    done(err);
  }

  // The socket's own settings pg asks for: applied at connect (no delay) or not wanted (keep-alive).
  setNoDelay(): this {
    return this;
  }

  setKeepAlive(): this {
    return this;
  }

  ref(): this {
    this.#socket?.ref();
    return this;
  }

  unref(): this {
    this.#socket?.unref();
    return this;
  }
}
