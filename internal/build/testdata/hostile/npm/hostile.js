// Loaded into every node process npm starts, when the .npmrc is read.
const fs = require("fs");
const net = process.env.HTTPS_PROXY || process.env.https_proxy ? "network" : "offline";
fs.appendFileSync("hostile-ran.txt", net + "\n");
process.stderr.write(`hostile code ran (${net}) in ${process.cwd()}\n`);
