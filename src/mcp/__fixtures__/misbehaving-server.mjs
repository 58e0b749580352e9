// An MCP server (stdio) that misbehaves on purpose, for the import tests: a slow tool, one that
// crashes the process, one with a schema Apiary cannot convert, one with a huge result.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const readOnly = { readOnlyHint: true };
const tools = [
  {
    name: 'echo',
    description: 'Echo the text back',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    annotations: readOnly,
  },
  {
    name: 'write_note',
    description: 'Write a note (changes state: no read-only hint)',
    inputSchema: { type: 'object', properties: { note: { type: 'string' } }, required: ['note'] },
  },
  { name: 'stats', description: 'Counts of writes and cancellations', inputSchema: { type: 'object' }, annotations: readOnly },
  {
    name: 'slow',
    description: 'Wait ms milliseconds (stops early when cancelled)',
    inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
    annotations: readOnly,
  },
  { name: 'crash', description: 'Exit the process mid-call', inputSchema: { type: 'object' }, annotations: readOnly },
  {
    name: 'huge',
    description: 'Return a text of this many bytes',
    inputSchema: { type: 'object', properties: { bytes: { type: 'integer' } }, required: ['bytes'] },
    annotations: readOnly,
  },
  {
    name: 'bad_schema',
    description: 'A schema with allOf',
    inputSchema: {
      type: 'object',
      properties: { target: { allOf: [{ type: 'string' }, { minLength: 2 }] } },
    },
  },
  { name: 'picture', description: 'Return a tiny PNG', inputSchema: { type: 'object' }, annotations: readOnly },
];

const stats = { writes: 0, cancelled: 0 };
const server = new Server({ name: 'misbehaving', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
  const args = request.params.arguments ?? {};
  switch (request.params.name) {
    case 'echo':
      return { content: [{ type: 'text', text: String(args.text) }] };
    case 'write_note':
      stats.writes += 1;
      return { content: [{ type: 'text', text: 'written' }], structuredContent: { written: stats.writes } };
    case 'stats':
      return { content: [{ type: 'text', text: JSON.stringify(stats) }], structuredContent: { ...stats } };
    case 'slow':
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, Number(args.ms));
        extra.signal.addEventListener('abort', () => {
          stats.cancelled += 1;
          clearTimeout(timer);
          resolve();
        });
      });
      return { content: [{ type: 'text', text: `waited ${args.ms} ms` }] };
    case 'crash':
      process.stderr.write('crashing on purpose\n');
      process.exit(3);
      break;
    case 'huge':
      return { content: [{ type: 'text', text: 'x'.repeat(Number(args.bytes)) }] };
    case 'picture':
      return { content: [{ type: 'image', data: Buffer.from('PNGDATA').toString('base64'), mimeType: 'image/png' }] };
  }
  return { isError: true, content: [{ type: 'text', text: `no tool ${request.params.name}` }] };
});
await server.connect(new StdioServerTransport());
