/**
 * `restock-server/client`: the typed client. It lives in its own package, `restock-client`
 * (packages/client), which has no dependencies, so that a web application installs it alone
 * rather than the server's; restock re-exports it for projects that have restock anyway.
 */
export * from 'restock-client';
