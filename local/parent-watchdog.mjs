// Preloaded into child processes of the local stack (`node --import`): when the parent dies without
// stopping its children (kill -9, a crash), the child notices that it was re-parented and exits, so
// no orphan keeps a port.
const parent = process.ppid;
const timer = setInterval(() => {
  if (process.ppid !== parent) process.exit(0);
}, 500);
timer.unref();
