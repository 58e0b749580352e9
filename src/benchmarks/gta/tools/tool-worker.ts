import { ApiaryError } from '../../../shared/index.js';
import type { ToolReply, ToolTask } from './tool-threads.js';

/**
 * The entry of a tool worker thread (tool-threads.ts): runs one task and answers with its value
 * or its coded error. Each tool's code is loaded on its first task in this thread.
 */
const TOOL = { calculate: 'Calculator', 'draw-box': 'DrawBox', 'add-text': 'AddText' } as const;

export default async function runToolTask(task: ToolTask): Promise<ToolReply> {
  try {
    switch (task.kind) {
      case 'calculate': {
        const { calculate } = await import('./calculator.js');
        return { ok: true, value: calculate(task.expression) };
      }
      case 'draw-box': {
        const { renderDrawBox } = await import('./image-render.js');
        return { ok: true, value: await renderDrawBox(task) };
      }
      case 'add-text': {
        const { renderAddText } = await import('./image-render.js');
        return { ok: true, value: await renderAddText(task) };
      }
    }
  } catch (e) {
    if (e instanceof ApiaryError) return { ok: false, code: e.code, message: e.message };
    return { ok: false, code: 'TOOL_FAILED', message: `${TOOL[task.kind]}: ${(e as Error).message}` };
  }
}
