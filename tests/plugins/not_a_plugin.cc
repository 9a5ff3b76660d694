// A shared object without the plugin symbols: `--plugin` must refuse it (test_plugins.py).
extern "C" int not_a_schedkit_plugin() { return 0; }
