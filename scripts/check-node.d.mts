/** The one line that refuses Node.js `version` when `range` (package.json engines) does not take it. */
export function unsupportedNodeMessage(version: string, range?: string): string | undefined;
