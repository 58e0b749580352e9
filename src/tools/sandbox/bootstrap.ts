/**
 * The Python program the sandbox starts (`python3 -I -c BOOTSTRAP limits.json entry.py`): it sets
 * the resource limits on itself (hard limits, so user code cannot raise them), then runs the
 * entry file as `__main__`. Limits are set here rather than on bwrap because bwrap must still
 * fork its own processes, and RLIMIT_NPROC counts every process of the user.
 */
export const PYTHON_BOOTSTRAP = `
import json, resource, runpy, sys
_limits = json.loads(sys.argv[1])
for _name, (_soft, _hard) in _limits.items():
    resource.setrlimit(getattr(resource, _name), (_soft, _hard))
del _limits, _name, _soft, _hard
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
`;

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
