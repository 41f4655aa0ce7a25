/** The two collections restock serves when no schema folder declares others: users and products. */
import type { CollectionDeclaration } from './collection.js';

export const DEFAULT_COLLECTIONS = [
  {
    plural: 'users',
    singular: 'user',
    description: 'People who have an account with the store.',
    example: { name: 'Ada Lovelace', email: 'ada@example.com' },
    indexes: ['email'],
  },
  {
    plural: 'products',
    singular: 'product',
    description: "The online store's catalogue.",
    example: { name: 'Teapot', sku: 'TEA-1', price: 19.5 },
    indexes: ['sku', 'price'],
  },
] as const satisfies readonly CollectionDeclaration[];
