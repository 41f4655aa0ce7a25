/** Fields the server owns on every record: ignored when a client sends them. */
export const SYSTEM_FIELDS = ['id', 'createdAt', 'updatedAt'] as const;
export type SystemField = (typeof SYSTEM_FIELDS)[number];
