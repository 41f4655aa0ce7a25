/** A TCP server that never answers: for clients' timeouts and aborts. */
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';

/** A server that takes connections and never answers; `connected()` resolves at the next one. */
export async function silentServer() {
  const sockets = new Set<Socket>();
  const waiting: (() => void)[] = [];
  const server = createNetServer((socket) => {
    sockets.add(socket);
    for (const resolve of waiting.splice(0)) resolve();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connected: () => new Promise<void>((resolve) => waiting.push(resolve)),
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
