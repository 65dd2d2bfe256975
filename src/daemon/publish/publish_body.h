/* The bodies batond sends to Agones' SDK REST gateway and to the
 * Kubernetes API server, and the parsers of their answers: pure functions,
 * unit-tested and fuzzed (tests/fuzz/fuzz_publish.c). Routes and schemas:
 * Agones' sdks/swagger/{sdk,beta}.swagger.json (v1.56.0) and the
 * Kubernetes API's Node and JSON patch (RFC 6902). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Answers are read up to this many bytes; longer is an error. */
#define PUBLISH_BODY_MAX 65536

/* {"count":"C","capacity":"K"}: beta CounterUpdateRequest, int64 as JSON
 * strings (proto3's JSON mapping); the name travels in the path. Heap,
 * NULL when out of memory. */
char *publish_agones_counter_body(int64_t count, int64_t capacity);

/* An SDK answer to /ready or /health: sdkEmpty, a JSON object. */
bool publish_agones_empty_ok(const char *body, size_t len);

/* A betaCounter answer: its name must be name; count and capacity read as
 * int64 strings or integers. */
bool publish_agones_counter_parse(const char *body, size_t len,
                                  const char *name, int64_t *count,
                                  int64_t *capacity);

/* The JSON patch setting status.capacity and status.allocatable of
 * resource to n ("/" in the name written "~1", "~" as "~0"). Heap. */
char *publish_k8s_patch_body(const char *resource, int64_t n);

/* A Node answer: kind "Node" and status.capacity[resource] a plain
 * decimal quantity, read into *n. */
bool publish_k8s_node_parse(const char *body, size_t len, const char *resource,
                            int64_t *n);

/* The URL path of the node's status, the node name percent-escaped. */
bool publish_k8s_path(const char *node, char *out, size_t len);
