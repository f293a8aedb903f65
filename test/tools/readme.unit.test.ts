import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MCP_KEY_VARIABLE } from "../../src/reference/usage-snippets";

/** The README keeps up with the tree: its layout block names every folder, and only folders that exist. */

const root = fileURLToPath(new URL("../..", import.meta.url));
const readme = readFileSync(join(root, "README.md"), "utf8");

/** Folders of `dir`, without dot-folders and without what .gitignore keeps out of the repository. */
function folders(dir: string): string[] {
  const ignored = readFileSync(join(root, ".gitignore"), "utf8")
    .split("\n")
    .filter((line) => line.endsWith("/"))
    .map((line) => line.slice(0, -1));
  return readdirSync(join(root, dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith(".") && !ignored.includes(e.name))
    .map((e) => e.name);
}

/** The paths named by the ```text block under "## Layout": indented entries are inside the last unindented one. */
function layoutPaths(): string[] {
  const block = /## Layout\n+```text\n([\s\S]*?)\n```/.exec(readme)?.[1];
  if (!block) throw new Error("README.md has no ```text block under ## Layout");
  let parent = "";
  return block.split("\n").map((line) => {
    const name = line.trim().split(/\s+/)[0] as string;
    if (!line.startsWith(" ")) parent = name;
    return line.startsWith(" ") ? parent + name : name;
  });
}

describe("README.md", () => {
  it("names every top-level folder and every folder of src/ and test/ in its layout", () => {
    const named = layoutPaths();
    const unnamed = (dir: string) =>
      folders(dir)
        .map((f) => (dir === "." ? `${f}/` : `${dir}/${f}/`))
        .filter((f) => !named.includes(f));
    expect(unnamed(".")).toEqual([]);
    expect(unnamed("src")).toEqual([]);
    expect(unnamed("test")).toEqual([]);
  });

  it("names only paths that exist", () => {
    expect(layoutPaths().filter((path) => !existsSync(join(root, path)))).toEqual([]);
  });

  it("gives the two commands, the second being the test command CI runs (`npm test`)", () => {
    const block = /## The two commands\n+```sh\n([\s\S]*?)\n```/.exec(readme)?.[1] ?? "";
    const commands = block.split("\n").map((line) => line.split("#")[0]?.trim());
    expect(commands).toEqual(["npm install && npm run dev", "npm install && npm test"]);
  });

  it("shows an MCP configuration for a committed .mcp.json without the key: it is read from the environment", () => {
    const section = /## From an AI assistant[\s\S]*?(?=\n## )/.exec(readme)?.[0] ?? "";
    const json = /```json\n([\s\S]*?)\n```/.exec(section)?.[1] ?? "";
    const config = JSON.parse(json) as { mcpServers: Record<string, { url: string; headers: Record<string, string> }> };
    const server = Object.values(config.mcpServers)[0]!;
    expect(server.url).toBe("http://127.0.0.1:8787/mcp");
    // Claude Code expands `${VAR}` in headers: the same variable the dashboard and /docs name.
    expect(server.headers).toEqual({ Authorization: `Bearer \${${MCP_KEY_VARIABLE}}` });
    expect(/```sh\n([\s\S]*?)\n```/.exec(section)?.[1]).toBe(`export ${MCP_KEY_VARIABLE}="<your API key>"`);
  });

  it("links nowhere outside the repository but this machine", () => {
    const urls = readme.match(/https?:\/\/[^\s)`"'>]+/g) ?? [];
    expect(urls.filter((url) => !/^https?:\/\/(127\.0\.0\.1|localhost)[:/]/.test(url))).toEqual([]);
    expect(readme).not.toContain("../");
  });
});
