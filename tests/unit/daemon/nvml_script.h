/* The file that scripts the test libnvidia-ml (stub_nvml*.c read it
 * through BATON_STUB_NVML_SCRIPT): made once per test group, rewritten
 * whole by each test. */
#ifndef BATON_TEST_NVML_SCRIPT_H
#define BATON_TEST_NVML_SCRIPT_H

/* cmocka group setup and teardown: a fresh file under /tmp, named in
 * BATON_STUB_NVML_SCRIPT; removed at the end. */
int nvml_script_setup(void **state);
int nvml_script_teardown(void **state);

/* Replaces the file's text atomically (written aside, then renamed), so
 * that a polling worker never reads half a script. */
void nvml_script_write(const char *text);

#endif
