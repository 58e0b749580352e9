/**
 * The Python program the sandbox starts (`python3 -I -B -c BOOTSTRAP config.json entry.py args…`).
 *
 * First it closes every inherited file descriptor above 2 (fds Apiary itself inherited, e.g. from
 * `apiary … 100<secret`, and bwrap's status fd would otherwise reach the code), keeping only the
 * transfer pipe. Without `transfer` (no bwrap) it then sets the rlimits on itself and runs the entry
 * file as `__main__`.
 *
 * With `transfer` (bwrap: the work folder is a size-limited tmpfs the host cannot see) it is a
 * small supervisor: it copies the inputs from the read-only `/.input` into the tmpfs, forks the
 * code's process (which drops the pipe, sets the rlimits and runs the entry file), having made itself
 * undumpable first (so the code cannot reach the pipe through /proc), waits, kills whatever the code
 * left running, and streams the regular files written back over the pipe: per file a JSON line
 * `{"name", "bytes"}` and the bytes. The host treats that stream as untrusted (bounded, names
 * checked): it only carries what the code could have written anyway. The supervisor then ends
 * as the code did (same exit status, or the same signal).
 *
 * Limits are set here rather than on bwrap because bwrap must still fork its own processes.
 * `singleProcess`: the fallback without a cgroup, where RLIMIT_NPROC is set to the tasks already
 * running in the sandbox's namespaces, so the code can start no process or thread and its
 * RLIMIT_AS bounds the memory of the whole sandbox.
 */
export const PYTHON_BOOTSTRAP = `
import json, os, resource, sys
_config = json.loads(sys.argv[1])
_transfer = _config.get('transfer')
_keep = _transfer['fd'] if _transfer else -1
try:
    _fds = [int(_n) for _n in os.listdir('/proc/self/fd')]
except OSError:
    _fds = range(3, 65536)
for _fd in _fds:
    if _fd > 2 and _fd != _keep:
        try:
            os.close(_fd)
        except OSError:
            pass

def _limit():
    for _name, (_soft, _hard) in _config['rlimits'].items():
        resource.setrlimit(getattr(resource, _name), (_soft, _hard))
    if _config.get('singleProcess'):
        _tasks = sum(len(os.listdir('/proc/' + p + '/task')) for p in os.listdir('/proc') if p.isdigit())
        resource.setrlimit(resource.RLIMIT_NPROC, (_tasks, _tasks))

def _run():
    import runpy
    _entry = sys.argv[2]
    sys.argv = sys.argv[2:]
    try:
        runpy.run_path(_entry, run_name='__main__')
    except SystemExit:
        raise
    except BaseException as _error:
        # The traceback from the entry file on: the bootstrap's own frames would only confuse.
        import traceback
        _tb = _error.__traceback__
        while _tb is not None and _tb.tb_frame.f_code.co_filename != _entry:
            _tb = _tb.tb_next
        traceback.print_exception(type(_error), _error, _tb)
        sys.exit(1)

def _files(skip, private, max_files, max_bytes, max_name):
    import stat
    stack, total, sent = [''], 0, 0
    while stack and sent < max_files:
        rel = stack.pop()
        try:
            entries = sorted(os.scandir(rel or '.'), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            name = rel + '/' + entry.name if rel else entry.name
            if len(name) > max_name or (not rel and entry.name in private) or name in skip:
                continue
            if entry.is_dir(follow_symlinks=False):
                stack.append(name)
                continue
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
            except OSError:
                continue
            with open(fd, 'rb') as file:
                info = os.fstat(fd)
                if not stat.S_ISREG(info.st_mode) or total + info.st_size > max_bytes:
                    continue
                data = file.read(info.st_size)
            total += len(data)
            sent += 1
            yield name, data
            if sent >= max_files:
                break

if _transfer is None:
    _limit()
    _run()
else:
    import ctypes, signal
    for _top, _dirs, _names in os.walk(_transfer['input']):  # the inputs (the host's: small)
        _dest = os.path.relpath(_top, _transfer['input'])
        os.makedirs(_dest, exist_ok=True)
        for _name in _names:
            with open(os.path.join(_top, _name), 'rb') as _in, open(os.path.join(_dest, _name), 'wb') as _copy:
                _copy.write(_in.read())
    # PR_SET_DUMPABLE 0 before the fork, so the code never sees the supervisor's /proc/<pid>/fd
    # (the pipe) open to it; the code's process makes itself dumpable again.
    _prctl = ctypes.CDLL(None).prctl
    _prctl(4, 0, 0, 0, 0)
    _pid = os.fork()
    if _pid == 0:
        _prctl(4, 1, 0, 0, 0)
        os.close(_keep)
        _limit()
        _run()
        sys.exit(0)
    _, _status = os.waitpid(_pid, 0)
    try:
        os.kill(-1, signal.SIGKILL)  # what the code left running (everything but us and bwrap's init)
    except OSError:
        pass
    with os.fdopen(_keep, 'wb') as _out:
        for _name, _data in _files(set(_transfer['skip']), _transfer['private'], _transfer['maxFiles'],
                                   _transfer['maxBytes'], _transfer['maxName']):
            _out.write(json.dumps({'name': _name, 'bytes': len(_data)}).encode() + b'\\n' + _data)
    sys.stdout.flush()
    if os.WIFSIGNALED(_status):
        signal.signal(os.WTERMSIG(_status), signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        os.kill(os.getpid(), os.WTERMSIG(_status))
    os._exit(os.WEXITSTATUS(_status) if os.WIFEXITED(_status) else 1)
`;

/** What the supervisor streams back (see PYTHON_BOOTSTRAP) and how much at most. */
export interface TransferConfig {
  fd: number;
  /** Where the inputs are bound read-only inside the sandbox. */
  input: string;
  /** Relative names not sent back: the inputs and the entry file. */
  skip: string[];
  /** Top-level folders of the sandbox's own (home, temp). */
  private: string[];
  maxFiles: number;
  maxBytes: number;
  /** Longest relative name sent back; deeper files stay in the tmpfs and vanish with it. */
  maxName: number;
}

export interface BootstrapConfig {
  rlimits: Record<string, [number, number]>;
  singleProcess: boolean;
  transfer: TransferConfig | null;
}

/**
 * The rlimits for one run as [soft, hard], by the names Python's `resource` module uses. Soft =
 * hard except for CPU, whose hard limit is one second later: the soft limit sends SIGXCPU (a
 * clear cause), the hard one SIGKILL should the code catch SIGXCPU.
 */
export function rlimitsFor(limits: {
  cpuSeconds: number;
  memoryBytes: number;
  processCap: number;
  maxFileBytes: number;
  maxOpenFiles: number;
}): Record<string, [number, number]> {
  return {
    RLIMIT_CPU: [limits.cpuSeconds, limits.cpuSeconds + 1],
    RLIMIT_AS: [limits.memoryBytes, limits.memoryBytes],
    RLIMIT_NPROC: [limits.processCap, limits.processCap],
    RLIMIT_FSIZE: [limits.maxFileBytes, limits.maxFileBytes],
    RLIMIT_NOFILE: [limits.maxOpenFiles, limits.maxOpenFiles],
    RLIMIT_CORE: [0, 0],
  };
}
