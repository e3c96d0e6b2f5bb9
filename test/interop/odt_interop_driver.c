/* odt_interop_driver: the pieces of the ONNX Runtime interoperability tests
 * (test/interop) that need odt's C API (runtime/include/odt/odt.h, libodt.so)
 * rather than odt-run. Every command prints JSON, one object per line, on
 * stdout; an API error prints {"error": MESSAGE} and exits 1.
 *
 *   props CKPT NAME...
 *       OdtGetProperty for each name: {"name", "type": int|float|string,
 *       "value"} or {"name", "missing": MESSAGE}.
 *   params CKPT OUT_DIR NAME...
 *       OdtGetParameterTypeAndShape + OdtGetParameter for each name:
 *       {"name", "dtype", "dims"}; the values go to OUT_DIR/<index>.bin (raw,
 *       little-endian). A parameter without values prints {"name", "dtype",
 *       "rank": 0, "nominal": true} when GetParameter fails.
 *   addprops IN OUT TYPE:NAME=VALUE...
 *       Loads IN, OdtAddProperty for each (TYPE i, f or s), saves OUT with
 *       optimizer state (OdtSaveCheckpoint(..., true)).
 *   nominal MODEL_DIR NOMINAL_CKPT FULL_CKPT STEPS LR SAVE INPUT...
 *       Two sessions on MODEL_DIR: one on FULL_CKPT, one on NOMINAL_CKPT.
 *       Tries a TrainStep on the nominal one (it must fail), then completes it
 *       with OdtCopyBufferToParameters(trainable_only=false) from the full
 *       session's OdtCopyParametersToBuffer(trainable_only=false), and runs
 *       STEPS x {TrainStep, OptimizerStep, LazyResetGrad} on both at LR,
 *       printing {"step", "full", "nominal"} losses; saves the completed
 *       nominal state to SAVE (with optimizer state) unless SAVE is "-".
 *       INPUT is FILE.bin:DTYPE:D0,D1,... (DTYPE f32, i32 or i64), raw data,
 *       in the training model's input order.
 */

#include "odt/odt.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void json_string(const char *s) {
  putchar('"');
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      printf("\\%c", c);
    else if (c < 0x20)
      printf("\\u%04x", c);
    else
      putchar(c);
  }
  putchar('"');
}

static void check(OdtStatus *status, const char *what) {
  if (!status)
    return;
  printf("{\"error\": ");
  json_string(what);
  printf(", \"message\": ");
  json_string(OdtGetErrorMessage(status));
  printf("}\n");
  OdtReleaseStatus(status);
  exit(1);
}

static OdtCheckpointState *load(const char *path) {
  OdtCheckpointState *state = NULL;
  check(OdtLoadCheckpoint(path, &state), path);
  return state;
}

static const char *dtype_name(OdtDataType type) {
  switch (type) {
  case ODT_FLOAT: return "float32";
  case ODT_INT32: return "int32";
  case ODT_INT64: return "int64";
  case ODT_DOUBLE: return "float64";
  default: return "other";
  }
}

static size_t dtype_size(OdtDataType type) {
  switch (type) {
  case ODT_DOUBLE: case ODT_INT64: case ODT_UINT64: return 8;
  case ODT_FLOAT: case ODT_INT32: case ODT_UINT32: return 4;
  case ODT_FLOAT16: case ODT_BFLOAT16: case ODT_INT16: case ODT_UINT16: return 2;
  default: return 1;
  }
}

static int cmd_props(int argc, char **argv) {
  if (argc < 1)
    return 2;
  OdtCheckpointState *state = load(argv[0]);
  for (int i = 1; i < argc; ++i) {
    OdtPropertyType type;
    const void *value = NULL;
    OdtStatus *status = OdtGetProperty(state, argv[i], &type, &value);
    printf("{\"name\": ");
    json_string(argv[i]);
    if (status) {
      printf(", \"missing\": ");
      json_string(OdtGetErrorMessage(status));
      OdtReleaseStatus(status);
    } else if (type == ODT_INT_PROPERTY) {
      printf(", \"type\": \"int\", \"value\": %" PRId64, *(const int64_t *)value);
    } else if (type == ODT_FLOAT_PROPERTY) {
      printf(", \"type\": \"float\", \"value\": %.9g", (double)*(const float *)value);
    } else {
      printf(", \"type\": \"string\", \"value\": ");
      json_string((const char *)value);
    }
    printf("}\n");
  }
  OdtReleaseCheckpointState(state);
  return 0;
}

static int cmd_params(int argc, char **argv) {
  if (argc < 2)
    return 2;
  OdtCheckpointState *state = load(argv[0]);
  for (int i = 2; i < argc; ++i) {
    OdtDataType type;
    size_t rank = 0;
    const int64_t *dims = NULL;
    check(OdtGetParameterTypeAndShape(state, argv[i], &type, &rank, &dims), argv[i]);
    OdtValue *value = NULL;
    OdtStatus *status = OdtGetParameter(state, argv[i], &value);
    printf("{\"name\": ");
    json_string(argv[i]);
    printf(", \"dtype\": \"%s\", \"rank\": %zu, \"dims\": [", dtype_name(type), rank);
    for (size_t d = 0; d < rank; ++d)
      printf("%s%" PRId64, d ? ", " : "", dims[d]);
    printf("]");
    if (status) {
      printf(", \"nominal\": true, \"message\": ");
      json_string(OdtGetErrorMessage(status));
      OdtReleaseStatus(status);
    } else {
      size_t count = 0;
      void *data = NULL;
      check(OdtGetTensorElementCount(value, &count), "OdtGetTensorElementCount");
      check(OdtGetTensorData(value, &data), "OdtGetTensorData");
      char path[4096];
      snprintf(path, sizeof path, "%s/%d.bin", argv[1], i - 2);
      FILE *f = fopen(path, "wb");
      if (!f || fwrite(data, dtype_size(type), count, f) != count || fclose(f)) {
        fprintf(stderr, "cannot write %s\n", path);
        return 1;
      }
      printf(", \"file\": ");
      json_string(path);
      OdtReleaseValue(value);
    }
    printf("}\n");
  }
  OdtReleaseCheckpointState(state);
  return 0;
}

static int cmd_addprops(int argc, char **argv) {
  if (argc < 2)
    return 2;
  OdtCheckpointState *state = load(argv[0]);
  for (int i = 2; i < argc; ++i) {
    char *spec = argv[i];
    char *eq = strchr(spec, '=');
    if (strlen(spec) < 3 || spec[1] != ':' || !eq) {
      fprintf(stderr, "bad property %s (TYPE:NAME=VALUE)\n", spec);
      return 2;
    }
    *eq = '\0';
    const char *name = spec + 2, *text = eq + 1;
    int64_t iv;
    float fv;
    if (spec[0] == 'i') {
      iv = strtoll(text, NULL, 10);
      check(OdtAddProperty(state, name, ODT_INT_PROPERTY, &iv), name);
    } else if (spec[0] == 'f') {
      fv = strtof(text, NULL);
      check(OdtAddProperty(state, name, ODT_FLOAT_PROPERTY, &fv), name);
    } else {
      check(OdtAddProperty(state, name, ODT_STRING_PROPERTY, text), name);
    }
  }
  check(OdtSaveCheckpoint(state, argv[1], true), argv[1]);
  OdtReleaseCheckpointState(state);
  printf("{\"saved\": ");
  json_string(argv[1]);
  printf("}\n");
  return 0;
}

/* FILE.bin:DTYPE:D0,D1,... -> a tensor over freshly read memory. */
static OdtValue *read_input(const char *spec) {
  char file[4096], dtype[16], dims_text[256];
  const char *c1 = strchr(spec, ':');
  const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
  if (!c2 || (size_t)(c1 - spec) >= sizeof file || (size_t)(c2 - c1 - 1) >= sizeof dtype ||
      strlen(c2 + 1) >= sizeof dims_text) {
    fprintf(stderr, "bad input %s (FILE.bin:DTYPE:D0,D1)\n", spec);
    exit(2);
  }
  memcpy(file, spec, c1 - spec);
  file[c1 - spec] = '\0';
  memcpy(dtype, c1 + 1, c2 - c1 - 1);
  dtype[c2 - c1 - 1] = '\0';
  strcpy(dims_text, c2 + 1);
  OdtDataType type = !strcmp(dtype, "f32")   ? ODT_FLOAT
                     : !strcmp(dtype, "i32") ? ODT_INT32
                     : !strcmp(dtype, "i64") ? ODT_INT64
                                             : ODT_UNDEFINED;
  if (type == ODT_UNDEFINED) {
    fprintf(stderr, "bad dtype %s\n", dtype);
    exit(2);
  }
  int64_t shape[8];
  size_t rank = 0, count = 1;
  for (char *tok = strtok(dims_text, ","); tok && rank < 8; tok = strtok(NULL, ",")) {
    shape[rank] = strtoll(tok, NULL, 10);
    count *= (size_t)shape[rank++];
  }
  OdtValue *value = NULL;
  check(OdtCreateTensor(type, shape, rank, &value), spec);
  void *data = NULL;
  check(OdtGetTensorData(value, &data), "OdtGetTensorData");
  FILE *f = fopen(file, "rb");
  if (!f || fread(data, dtype_size(type), count, f) != count) {
    fprintf(stderr, "cannot read %zu elements of %s from %s\n", count, dtype, file);
    exit(2);
  }
  fclose(f);
  return value;
}

static float train_step(OdtTrainingSession *session, size_t n, const OdtValue *const *inputs) {
  OdtValue *outputs[8] = {NULL};
  size_t count = 0;
  check(OdtGetTrainingModelOutputCount(session, &count), "OdtGetTrainingModelOutputCount");
  if (count > 8)
    count = 8;
  check(OdtTrainStep(session, n, inputs, count, outputs), "OdtTrainStep");
  check(OdtOptimizerStep(session), "OdtOptimizerStep");
  check(OdtLazyResetGrad(session), "OdtLazyResetGrad");
  void *data = NULL;
  check(OdtGetTensorData(outputs[0], &data), "OdtGetTensorData(loss)");
  float loss = *(const float *)data;
  for (size_t i = 0; i < count; ++i)
    OdtReleaseValue(outputs[i]);
  return loss;
}

static int cmd_nominal(int argc, char **argv) {
  if (argc < 6)
    return 2;
  const char *model = argv[0], *save = argv[5];
  long steps = strtol(argv[3], NULL, 10);
  float lr = strtof(argv[4], NULL);
  size_t n = (size_t)(argc - 6);
  OdtValue *inputs[8];
  if (n > 8)
    return 2;
  for (size_t i = 0; i < n; ++i)
    inputs[i] = read_input(argv[6 + i]);

  OdtCheckpointState *nominal = load(argv[1]), *full = load(argv[2]);
  OdtTrainingSession *nsession = NULL, *fsession = NULL;
  check(OdtCreateTrainingSession(nominal, model, &nsession),
        "OdtCreateTrainingSession(nominal)");
  check(OdtCreateTrainingSession(full, model, &fsession), "OdtCreateTrainingSession(full)");

  size_t nsize_all = 0, nsize_trainable = 0, fsize_all = 0, fsize_trainable = 0;
  check(OdtGetParametersSize(nsession, &nsize_all, false), "OdtGetParametersSize(nominal)");
  check(OdtGetParametersSize(nsession, &nsize_trainable, true), "OdtGetParametersSize(nominal)");
  check(OdtGetParametersSize(fsession, &fsize_all, false), "OdtGetParametersSize(full)");
  check(OdtGetParametersSize(fsession, &fsize_trainable, true), "OdtGetParametersSize(full)");
  printf("{\"nominal_size\": %zu, \"nominal_trainable_size\": %zu, \"full_size\": %zu, "
         "\"full_trainable_size\": %zu}\n",
         nsize_all, nsize_trainable, fsize_all, fsize_trainable);

  /* Training on the nominal state before it has values must fail. */
  OdtValue *outputs[8] = {NULL};
  size_t out_count = 0;
  check(OdtGetTrainingModelOutputCount(nsession, &out_count), "OdtGetTrainingModelOutputCount");
  OdtStatus *status = OdtTrainStep(nsession, n, (const OdtValue *const *)inputs,
                                   out_count > 8 ? 8 : out_count, outputs);
  printf("{\"train_before_complete\": ");
  if (status) {
    json_string(OdtGetErrorMessage(status));
    OdtReleaseStatus(status);
  } else {
    printf("null");
  }
  printf("}\n");
  for (size_t i = 0; i < 8; ++i)
    if (outputs[i])
      OdtReleaseValue(outputs[i]);
  if (!status)
    check(OdtLazyResetGrad(nsession), "OdtLazyResetGrad");

  int64_t shape[1] = {(int64_t)fsize_all};
  OdtValue *buffer = NULL;
  check(OdtCreateTensor(ODT_FLOAT, shape, 1, &buffer), "OdtCreateTensor(buffer)");
  check(OdtCopyParametersToBuffer(fsession, buffer, false), "OdtCopyParametersToBuffer(full)");
  check(OdtCopyBufferToParameters(nsession, buffer, false),
        "OdtCopyBufferToParameters(nominal, trainable_only=false)");
  OdtReleaseValue(buffer);

  check(OdtSetLearningRate(nsession, lr), "OdtSetLearningRate");
  check(OdtSetLearningRate(fsession, lr), "OdtSetLearningRate");
  for (long s = 1; s <= steps; ++s) {
    float lf = train_step(fsession, n, (const OdtValue *const *)inputs);
    float ln = train_step(nsession, n, (const OdtValue *const *)inputs);
    printf("{\"step\": %ld, \"full\": %.9g, \"nominal\": %.9g}\n", s, (double)lf, (double)ln);
  }
  if (strcmp(save, "-"))
    check(OdtSaveCheckpoint(nominal, save, true), save);

  OdtReleaseTrainingSession(nsession);
  OdtReleaseTrainingSession(fsession);
  OdtReleaseCheckpointState(nominal);
  OdtReleaseCheckpointState(full);
  for (size_t i = 0; i < n; ++i)
    OdtReleaseValue(inputs[i]);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: odt_interop_driver props|params|addprops|nominal ...\n");
    return 2;
  }
  int rc = 2;
  if (!strcmp(argv[1], "props"))
    rc = cmd_props(argc - 2, argv + 2);
  else if (!strcmp(argv[1], "params"))
    rc = cmd_params(argc - 2, argv + 2);
  else if (!strcmp(argv[1], "addprops"))
    rc = cmd_addprops(argc - 2, argv + 2);
  else if (!strcmp(argv[1], "nominal"))
    rc = cmd_nominal(argc - 2, argv + 2);
  if (rc == 2)
    fprintf(stderr, "odt_interop_driver: bad arguments (see the comment at the top of "
                    "odt_interop_driver.c)\n");
  return rc;
}
