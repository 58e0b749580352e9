import { isLosslessNumber, type Json } from './json-value.js';

/**
 * A shortcut's workflow dictionary as an XML property list, written from the lossless JSON so an int
 * stays `<integer>` and a float `<real>` (the `plist` builder only sees JS numbers). Used to put a
 * ShortcutsBench JSON shortcut where `eval shortcuts --shortcuts` reads `.plist` files. Nulls have no
 * plist form and are left out of dictionaries and arrays.
 */
export function workflowToXmlPlist(workflow: Json): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    '<plist version="1.0">',
    element(workflow, ''),
    '</plist>',
    '',
  ].join('\n');
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function element(v: Json, indent: string): string {
  if (v === true) return `${indent}<true/>`;
  if (v === false) return `${indent}<false/>`;
  if (typeof v === 'string') return `${indent}<string>${escapeXml(v)}</string>`;
  if (isLosslessNumber(v))
    return /[.eE]/.test(v.value)
      ? `${indent}<real>${v.value}</real>`
      : `${indent}<integer>${v.value}</integer>`;
  const inner = `${indent}\t`;
  if (Array.isArray(v)) {
    const items = v.filter((x) => x !== null).map((x) => element(x, inner));
    return items.length ? `${indent}<array>\n${items.join('\n')}\n${indent}</array>` : `${indent}<array/>`;
  }
  if (v === null) return `${indent}<string></string>`;
  const entries = Object.entries(v).filter(([, x]) => x !== null);
  if (!entries.length) return `${indent}<dict/>`;
  const body = entries.map(([k, x]) => `${inner}<key>${escapeXml(k)}</key>\n${element(x, inner)}`);
  return `${indent}<dict>\n${body.join('\n')}\n${indent}</dict>`;
}
