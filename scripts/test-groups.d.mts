/** Each test group's files, by name (`test/<name>.test.ts`). */
export declare const TEST_GROUPS: Readonly<Record<string, readonly string[]>>;
/** The files of one group, as paths from the project's root; throws for a group that does not exist. */
export declare function groupFiles(group: string): string[];
