// End-to-end client for vine serve, on the official TypeScript MCP SDK.
//
//   node client.mjs stdio VINE-BINARY serve --forest DIR
//   node client.mjs http http://127.0.0.1:PORT/mcp
//
// It lists the tools, runs a locate, and makes refused calls, checking
// each answer's shape; any mismatch exits non-zero.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const [mode, target, ...rest] = process.argv.slice(2);

function transport() {
  switch (mode) {
    case "stdio":
      return new StdioClientTransport({ command: target, args: rest, stderr: "inherit" });
    case "http":
      return new StreamableHTTPClientTransport(new URL(target));
    default:
      throw new Error(`usage: client.mjs stdio BINARY ARGS... | client.mjs http URL (got ${mode})`);
  }
}

// envelope checks a refusal: isError, one text block, exactly {"error":{code,message[,hint]}}.
function envelope(result, code) {
  assert.equal(result.isError, true, `expected a refusal, got ${JSON.stringify(result)}`);
  assert.equal(result.content.length, 1);
  assert.equal(result.content[0].type, "text");
  const body = JSON.parse(result.content[0].text);
  assert.deepEqual(Object.keys(body), ["error"]);
  assert.equal(body.error.code, code, body.error.message);
  assert.ok(body.error.message.length > 0);
  return body.error;
}

function answer(result) {
  assert.notEqual(result.isError, true, `refused: ${JSON.stringify(result.content)}`);
  assert.equal(result.content[0].type, "text");
  const text = result.content[0].text;
  assert.equal(text, JSON.stringify(JSON.parse(text)), "the text block is compact JSON");
  return JSON.parse(text);
}

async function main() {
  const client = new Client({ name: "vine-e2e", version: "1.0.0" });
  await client.connect(transport());
  try {
    const server = client.getServerVersion();
    assert.equal(server.name, "vine");
    assert.ok(client.getInstructions().includes("locate"), "instructions name the tools");
    assert.equal(client.getServerCapabilities().resources, undefined, "no empty capabilities");

    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    for (const want of ["forests", "locate", "look", "pick", "plant", "view", "harvest"]) {
      assert.ok(names.includes(want), `tool ${want} is listed`);
    }
    for (const t of tools) {
      assert.equal(t.inputSchema.type, "object", t.name);
      assert.equal(t.annotations.openWorldHint, false, t.name);
    }
    const locateTool = tools.find((t) => t.name === "locate");
    assert.deepEqual(locateTool.inputSchema.required, ["query"]);
    assert.equal(locateTool.inputSchema.properties.k.default, 5);

    const forests = answer(await client.callTool({ name: "forests", arguments: {} }));
    assert.equal(forests.forests.length, 1);

    const found = answer(await client.callTool({ name: "locate", arguments: { query: "tide table" } }));
    assert.ok(found.results.length > 0, "locate finds the planted node");
    assert.equal(found.results[0].id, "harbour/tide-table");

    const wrongType = envelope(await client.callTool({ name: "look", arguments: { id: 7 } }), "E_SCHEMA");
    assert.match(wrongType.message, /parameter 'id'/);
    const unknown = envelope(await client.callTool({ name: "teleport", arguments: {} }), "E_NOT_FOUND");
    assert.match(unknown.hint, /locate/);
    envelope(await client.callTool({ name: "look", arguments: { id: "../../etc/passwd" } }), "E_NOT_FOUND");

    console.log(`ok ${mode}: ${names.length} tools, locate found ${found.results[0].id}, refusals wear the envelope`);
  } finally {
    await client.close();
  }
}

main().catch((err) => {
  console.error(`FAIL ${mode}:`, err);
  process.exit(1);
});
