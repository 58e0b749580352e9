import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type CallToolResult, ErrorCode, McpError, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { ApiaryError } from '../shared/index.js';
import { isStdioSpec, type McpServerSpec } from './servers-config.js';

/** Why a call to an imported server failed. */
export type McpFailure =
  | 'unreachable'
  | 'timeout'
  | 'crashed'
  | 'tool-error'
  | 'result-too-large'
  | 'invalid-result';

/**
 * A typed failure of an imported MCP server; `dispatchCall` turns it into a `TOOL_FAILED` outcome
 * (`NETWORK` when the server cannot be reached) whose message names the server and the tool.
 */
export class McpServerError extends ApiaryError {
  constructor(
    readonly server: string,
    readonly failure: McpFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(failure === 'unreachable' ? 'NETWORK' : 'TOOL_FAILED', message, options);
  }
}

/** Time to start, connect and list the tools by default: enough for a cold `npx -y` download. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 60_000;

export interface McpConnectionOptions {
  /** Time limit to connect and initialize, and to list the tools (default 60 000 ms). */
  connectTimeoutMs?: number;
  /** Time limit of one request (default 600 000 ms: the caller's own limit and signal govern). */
  requestTimeoutMs?: number;
  /** Largest tool result accepted, in bytes of JSON (default 4 MB). */
  maxResultBytes?: number;
  /** Makes the transport (tests inject an in-memory one); default from the spec. */
  transport?: () => Transport;
}

const STDERR_TAIL = 1000;

/**
 * One imported server: connects on first use, and again after the server went away (a crash, a
 * closed connection), so a crashed server costs the calls in flight, not the session.
 */
export class McpConnection {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private stderrTail = '';
  /** The transport's last error (a message over the size limit closes a stdio connection). */
  private transportError: Error | undefined;
  /** Connections made so far (1 after the first; more after reconnections). */
  connects = 0;

  constructor(
    readonly name: string,
    readonly spec: McpServerSpec,
    private readonly opts: McpConnectionOptions = {},
  ) {}

  private makeTransport(): Transport {
    if (this.opts.transport) return this.opts.transport();
    if (isStdioSpec(this.spec)) {
      const t = new StdioClientTransport({
        command: this.spec.command,
        args: this.spec.args,
        ...(this.spec.env ? { env: this.spec.env } : {}),
        ...(this.spec.cwd ? { cwd: this.spec.cwd } : {}),
        stderr: 'pipe',
        maxBufferSize: (this.opts.maxResultBytes ?? 4 * 2 ** 20) * 2,
      });
      t.stderr?.on('data', (chunk: Buffer) => {
        this.stderrTail = (this.stderrTail + chunk.toString()).slice(-STDERR_TAIL);
      });
      return t;
    }
    return new StreamableHTTPClientTransport(new URL(this.spec.url), {
      ...(this.spec.headers ? { requestInit: { headers: this.spec.headers } } : {}),
    });
  }

  private where(): string {
    return isStdioSpec(this.spec)
      ? `MCP server "${this.name}" (${[this.spec.command, ...this.spec.args].join(' ')})`
      : `MCP server "${this.name}" (${this.spec.url})`;
  }

  private stderrNote(): string {
    const tail = this.stderrTail.trim();
    return tail ? `; its stderr ends: ${tail.split('\n').slice(-3).join(' | ')}` : '';
  }

  /** The connected client, connecting (again) when there is none. */
  async connect(): Promise<Client> {
    if (this.client) return this.client;
    this.connecting ??= this.open().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async open(): Promise<Client> {
    this.transportError = undefined;
    const client = new Client({ name: 'apiary', version: '0.1.0' }, { capabilities: {} });
    const timeout = this.opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    try {
      await client.connect(this.makeTransport(), { timeout });
    } catch (error) {
      await client.close().catch(() => {});
      throw new McpServerError(
        this.name,
        'unreachable',
        `${this.where()} could not be reached: ${(error as Error)?.message ?? error}${this.stderrNote()}`,
        { cause: error },
      );
    }
    client.onerror = (error) => {
      // The first error says why; what follows is the rest of the broken message.
      this.transportError ??= error;
    };
    client.onclose = () => {
      if (this.client === client) this.client = undefined;
    };
    this.client = client;
    this.connects += 1;
    return client;
  }

  /** Every tool the server lists (all pages). */
  async listTools(): Promise<Tool[]> {
    const client = await this.connect();
    const tools: Tool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client
        .listTools(cursor ? { cursor } : {}, {
          timeout: this.opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        })
        .catch((error: unknown) => {
          throw this.failure('tools/list', error);
        });
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    return tools;
  }

  /** Calls one tool; the signal cancels it (the server gets `notifications/cancelled`). */
  async callTool(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallToolResult> {
    const client = await this.connect();
    let result: CallToolResult;
    try {
      result = (await client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: this.opts.requestTimeoutMs ?? 600_000,
        ...(signal ? { signal } : {}),
      })) as CallToolResult;
    } catch (error) {
      if (signal?.aborted) throw signal.reason ?? error;
      const failure = this.failure(`tools/call "${tool}"`, error);
      // A lost HTTP session or server is not noticed by the client: drop it, the next call reconnects.
      if (failure.failure === 'crashed') await this.close();
      throw failure;
    }
    const limit = this.opts.maxResultBytes ?? 4 * 2 ** 20;
    const size = Buffer.byteLength(JSON.stringify(result));
    if (size > limit)
      throw new McpServerError(
        this.name,
        'result-too-large',
        `${this.where()}: the result of "${tool}" is ${size} bytes, above the ${limit}-byte limit`,
      );
    return result;
  }

  private failure(what: string, error: unknown): McpServerError {
    if (error instanceof McpServerError) return error;
    const message = (error as Error)?.message ?? String(error);
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
      return new McpServerError(this.name, 'timeout', `${this.where()} did not answer ${what} in time`, {
        cause: error,
      });
    const lost =
      error instanceof StreamableHTTPError ||
      (error instanceof TypeError && /fetch failed/.test(error.message));
    const closed =
      (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) || lost || !this.client;
    if (closed && /exceeded maximum size/.test(this.transportError?.message ?? ''))
      return new McpServerError(
        this.name,
        'result-too-large',
        `${this.where()} sent a message above the size limit during ${what}, so the connection was closed (Apiary reconnects on the next call): ${this.transportError?.message}`,
        { cause: error },
      );
    if (closed)
      return new McpServerError(
        this.name,
        'crashed',
        `${this.where()} went away during ${what} (Apiary reconnects on the next call)${this.stderrNote()}`,
        { cause: error },
      );
    if (error instanceof McpError)
      return new McpServerError(this.name, 'tool-error', `${this.where()} refused ${what}: ${message}`, {
        cause: error,
      });
    return new McpServerError(this.name, 'invalid-result', `${this.where()}: ${what} failed: ${message}`, {
      cause: error,
    });
  }

  async close(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    // An HTTP session is ended on the server too (DELETE), not left to expire.
    const transport = client?.transport;
    if (transport instanceof StreamableHTTPClientTransport)
      await transport.terminateSession().catch(() => {});
    await client?.close().catch(() => {});
  }
}
