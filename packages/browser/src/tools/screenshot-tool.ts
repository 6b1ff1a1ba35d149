import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentTool } from '@openlegion/protocol';
import { z } from 'zod';
import { resolveTarget } from '../actions/resolve-target.js';
import { labeledScreenshot } from '../screenshot/labeled-screenshot.js';
import { defaultFileName, workspacePath } from '../screenshot/workspace-file.js';
import type { BrowserSession } from '../session/browser-session.js';
import { browserTool, targetFields } from './browser-tool.js';

const MAX_LEGEND_CHARS = 6_000;

/** browser_screenshot: viewport, full page, one element, or labeled (set-of-marks). */
export function screenshotTool(session: BrowserSession): AgentTool {
  return browserTool(session, {
    name: 'browser_screenshot',
    description:
      'A PNG of the active tab, saved in the workspace and shown to you as an image. labeled=true draws a ' +
      'numbered box on each visible element you can act on: box 12 is ref e12. Prefer browser_snapshot for text; ' +
      'use this for visual layout, canvas and images.',
    input: z.object({
      labeled: z.boolean().default(false),
      full_page: z.boolean().default(false),
      ...targetFields,
      path: z.string().optional().describe('Workspace path; default screenshots/<time>.png'),
    }),
    run: async (input) => {
      const tab = await session.activeTab();
      let png: Buffer;
      let legend = '';
      if (input.labeled) {
        const shot = await labeledScreenshot(tab, session.refs);
        png = shot.png;
        legend = shot.marks
          .map(
            (mark) =>
              `${mark.label}: ${mark.role}${mark.name ? ` ${JSON.stringify(mark.name.slice(0, 60))}` : ''}`,
          )
          .join('\n')
          .slice(0, MAX_LEGEND_CHARS);
      } else if (input.ref || input.selector) {
        png = await (await resolveTarget(session, input)).locator.screenshot({ type: 'png' });
      } else {
        png = await tab.page.screenshot({ type: 'png', fullPage: input.full_page });
      }
      const file = await workspacePath(
        session.workspace,
        input.path ?? defaultFileName('screenshots', 'png'),
      );
      await writeFile(file, png);
      const saved = `saved ${path.relative(session.workspace, file)} (${tab.page.url()})`;
      const text = legend ? `${saved}\nboxes (number = ref e<number>):\n${legend}` : saved;
      return {
        content: [
          { type: 'text', text },
          { type: 'image', mimeType: 'image/png', data: png.toString('base64') },
        ],
      };
    },
  }) as AgentTool;
}
