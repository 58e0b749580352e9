// A tiny notes app as an MCP server (stdio), for `data build plans --servers`: one tool returns a
// note id that another takes; deleting changes state (no read-only hint) and counts its calls.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const readOnly = { readOnlyHint: true };
const noteId = { type: 'object', properties: { note_id: { type: 'string' } }, required: ['note_id'] };
const tools = [
  { name: 'latest_note', description: 'The newest note', inputSchema: { type: 'object' }, annotations: readOnly },
  { name: 'read_note', description: 'A note by id', inputSchema: noteId, annotations: readOnly },
  { name: 'delete_note', description: 'Delete a note', inputSchema: noteId },
];
const notes = { 'n-7': { note_id: 'n-7', title: 'Groceries', body: 'milk' } };
const server = new Server({ name: 'notes', version: '1.0.0' }, { capabilities: { tools: {} } });
server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
server.setRequestHandler(CallToolRequestSchema, (request) => {
  const args = request.params.arguments ?? {};
  const note = request.params.name === 'latest_note' ? notes['n-7'] : notes[String(args.note_id)];
  if (!note || request.params.name === 'delete_note')
    return { isError: true, content: [{ type: 'text', text: 'no such note, or not allowed' }] };
  return { content: [{ type: 'text', text: JSON.stringify(note) }], structuredContent: note };
});
await server.connect(new StdioServerTransport());
