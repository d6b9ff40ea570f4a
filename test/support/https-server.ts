// A real HTTPS server on 127.0.0.1 for tests, with a CA and a leaf certificate made by `openssl` in a
// temporary directory (removed at once; the PEMs stay in memory). Clients trust it through the CA
// (for the egress guard: `createEgressGuard({ ca: server.ca, allowHosts: ["127.0.0.1"] })`).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type http from "node:http";
import https from "node:https";
import type { AddressInfo, Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCertificates {
  /** The CA certificate (PEM): what clients trust. */
  ca: string;
  /** The leaf's private key (PEM). */
  key: string;
  /** The leaf certificate (PEM), signed by the CA. */
  cert: string;
}

const DEFAULT_NAMES = ["localhost"];
const DEFAULT_IPS = ["127.0.0.1", "::1"];
const made = new Map<string, TestCertificates>();

/** A CA and a leaf certificate for `localhost`, 127.0.0.1 and ::1 (plus any extra DNS names), valid
 * for one day. Made once per set of names in a process. */
export function makeTestCertificates(extraNames: string[] = []): TestCertificates {
  const names = [...new Set([...DEFAULT_NAMES, ...extraNames])];
  const cacheKey = names.join(",");
  const cached = made.get(cacheKey);
  if (cached !== undefined) return cached;
  const dir = mkdtempSync(join(tmpdir(), "test-https-"));
  try {
    const openssl = (...args: string[]) => execFileSync("openssl", args, { cwd: dir, stdio: "pipe" });
    const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    openssl("req", "-x509", ...ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "1", "-subj", "/CN=test CA", "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign");
    openssl("req", ...ec, "-keyout", "leaf.key", "-out", "leaf.csr", "-subj", "/CN=localhost");
    const altNames = [...names.map((name) => `DNS:${name}`), ...DEFAULT_IPS.map((ip) => `IP:${ip}`)].join(",");
    writeFileSync(join(dir, "leaf.ext"), `subjectAltName=${altNames}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n`);
    openssl("x509", "-req", "-in", "leaf.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "leaf.pem", "-days", "1", "-extfile", "leaf.ext");
    const certificates = { ca: readFileSync(join(dir, "ca.pem"), "utf8"), key: readFileSync(join(dir, "leaf.key"), "utf8"), cert: readFileSync(join(dir, "leaf.pem"), "utf8") };
    made.set(cacheKey, certificates);
    return certificates;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface HttpsTestServer {
  readonly server: https.Server;
  readonly port: number;
  /** `https://127.0.0.1:<port>` (no trailing slash). */
  readonly url: string;
  /** The CA certificate (PEM) the server's certificate chains to. */
  readonly ca: string;
  /** TCP connections accepted so far. */
  readonly connections: number;
  /** Closes every connection (including requests still waiting for an answer) and the listener. */
  stop(): Promise<void>;
}

export interface HttpsTestServerOptions {
  certificates?: TestCertificates;
}

/** Starts an HTTPS server on 127.0.0.1 on a free port. */
export async function startHttpsServer(handler: http.RequestListener, options: HttpsTestServerOptions = {}): Promise<HttpsTestServer> {
  const certificates = options.certificates ?? makeTestCertificates();
  const server = https.createServer({ key: certificates.key, cert: certificates.cert }, handler);
  const sockets = new Set<Socket>();
  let connections = 0;
  server.on("connection", (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  // A client that goes away mid-handshake is not an error of the test.
  server.on("tlsClientError", () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let stopping: Promise<void> | undefined;
  return {
    server,
    port,
    url: `https://127.0.0.1:${port}`,
    ca: certificates.ca,
    get connections() {
      return connections;
    },
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        for (const socket of sockets) socket.destroy();
      });
      return stopping;
    },
  };
}
