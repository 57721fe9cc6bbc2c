// A worker module for pool.test.ts that fails while it loads, before it serves any task.
throw new Error('this worker module cannot load');
