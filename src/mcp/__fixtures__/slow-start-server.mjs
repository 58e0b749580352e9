// The misbehaving test server, started only after `argv[2]` milliseconds: a cold `npx -y` server
// (download, install, then start) as the connect time limit sees it. Requests sent meanwhile wait
// in the stdin pipe, as they do for a real slow server.
setTimeout(() => import('./misbehaving-server.mjs'), Number(process.argv[2] ?? 0));
