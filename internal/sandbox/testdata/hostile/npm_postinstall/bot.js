const fs = require("fs");
fs.writeFileSync(process.argv[3] + "/command.txt", "1,0,0");
