// The start-up floor: the least a Node HTTP server can do before it answers `/healthz`, loaded the
// way the mock's bin is (an ES module run by plain `node`, no loader hooks, no TypeScript).
// Usage: node BareHealthz.mjs <port>
import { createServer } from "node:http"

const body = '{"code":"SUCCESS","msg":null,"data":null}'
createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json" })
  response.end(body)
}).listen(Number(process.argv[2]), "127.0.0.1", () => process.stdout.write("listening\n"))
