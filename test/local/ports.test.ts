// Free ports for servers that listen later: taken below the OS's ephemeral range (where outgoing
// connections and port-0 binds draw theirs), free when handed out, and never handed out twice.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { freePort, portInUse } from "../../local/ports.ts";

const ephemeralLow = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);

describe("freePort", () => {
  it("hands out 200 distinct ports below the ephemeral range, each free to listen on", async () => {
    const ports: number[] = [];
    for (let i = 0; i < 200; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(200);
    for (const port of ports) expect(port).toBeLessThan(ephemeralLow);
    for (const port of ports.slice(0, 20)) expect(await portInUse(port)).toBe(false);
  });
});
