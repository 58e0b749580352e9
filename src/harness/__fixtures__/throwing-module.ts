// A setup module that fails on import (a worker must end with a clear error, not hang).
throw new Error('fixture module failed on import');
