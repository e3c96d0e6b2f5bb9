/* train_default.c — trains odt's built-in default model (examples/default)
 * through odt's public C API only: odt/odt.h and libodt.so.
 *
 *   train_default MODEL_DIR DATA_DIR OUT_DIR [STEPS [LR]]
 *
 * MODEL_DIR  odt-compile's output for the default model (libmodel.so), or
 *            "linked" when the program was built with the model linked in:
 *            ODT_EXAMPLE_LINKED_MODEL defined, model.h of odt_add_model(
 *            default_model ...) on the include path (examples/CMakeLists.txt)
 * DATA_DIR   make_default.py's output: checkpoint, train_<input>.npy and
 *            eval_<input>.npy for every model input (input, labels)
 * OUT_DIR    receives trained.ckpt (with optimizer state) and
 *            inference.onnx (ExportModelForInferencing, output "logits")
 * STEPS      training steps (default 20), LR the learning rate (default 0.01)
 *
 * Each step is TrainStep, OptimizerStep, LazyResetGrad, as `odt-run train`
 * does, and prints "step N loss L" with L to 9 significant digits (enough to
 * read back the exact float). Then "eval loss L" on the eval data. Any error
 * is printed on stderr and the exit status is 1.
 */

#include "odt/odt.h"
#ifdef ODT_EXAMPLE_LINKED_MODEL
#include "model.h"
#endif

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_INPUTS 8
#define MAX_RANK 8

/* ---- a small .npy reader: format version 1.0, little-endian float32,
 * int32 or int64, C order. ---------------------------------------------- */

typedef struct Npy {
  OdtDataType type;
  int64_t shape[MAX_RANK];
  size_t rank;
  void *data;
  size_t byte_size;
} Npy;

static void npy_free(Npy *npy) {
  free(npy->data);
  npy->data = NULL;
}

/* Finds `'key':` in the header and returns the text after it, or NULL. */
static const char *npy_field(const char *header, const char *key) {
  const char *at = strstr(header, key);
  if (!at)
    return NULL;
  at += strlen(key);
  while (*at == ' ')
    ++at;
  return at;
}

/* Reads `path` into `npy`. On failure writes a message into `error`. */
static int npy_read(const char *path, Npy *npy, char *error, size_t error_size) {
  FILE *file = fopen(path, "rb");
  unsigned char prefix[10];
  char header[4096];
  size_t header_len, element_size, count = 1;
  const char *p;
  long end = -1;
  int ok = 0;

  memset(npy, 0, sizeof *npy);
  if (!file) {
    snprintf(error, error_size, "cannot open '%s': %s", path, strerror(errno));
    return 0;
  }
  if (fread(prefix, 1, sizeof prefix, file) != sizeof prefix ||
      memcmp(prefix, "\x93NUMPY", 6) != 0) {
    snprintf(error, error_size, "'%s' is not a .npy file", path);
    goto done;
  }
  if (prefix[6] != 1) {
    snprintf(error, error_size, "'%s': .npy format version %d.%d, only 1.x "
             "is supported", path, prefix[6], prefix[7]);
    goto done;
  }
  header_len = (size_t)prefix[8] | (size_t)prefix[9] << 8;
  if (header_len >= sizeof header ||
      fread(header, 1, header_len, file) != header_len) {
    snprintf(error, error_size, "'%s': truncated or oversized header", path);
    goto done;
  }
  header[header_len] = '\0';

  p = npy_field(header, "'descr':");
  if (p && strncmp(p, "'<f4'", 5) == 0) {
    npy->type = ODT_FLOAT;
    element_size = 4;
  } else if (p && strncmp(p, "'<i4'", 5) == 0) {
    npy->type = ODT_INT32;
    element_size = 4;
  } else if (p && strncmp(p, "'<i8'", 5) == 0) {
    npy->type = ODT_INT64;
    element_size = 8;
  } else {
    snprintf(error, error_size, "'%s': dtype must be '<f4', '<i4' or '<i8'",
             path);
    goto done;
  }
  p = npy_field(header, "'fortran_order':");
  if (!p || strncmp(p, "False", 5) != 0) {
    snprintf(error, error_size, "'%s': only C order is supported", path);
    goto done;
  }
  p = npy_field(header, "'shape':");
  if (!p || *p != '(') {
    snprintf(error, error_size, "'%s': no shape in the header", path);
    goto done;
  }
  for (++p;;) {
    char *next;
    long long dim;
    while (*p == ' ' || *p == ',')
      ++p;
    if (*p == ')')
      break;
    errno = 0;
    dim = strtoll(p, &next, 10);
    if (next == p || errno || dim < 0 || npy->rank == MAX_RANK) {
      snprintf(error, error_size, "'%s': bad shape in the header", path);
      goto done;
    }
    npy->shape[npy->rank++] = dim;
    if (dim && count > (size_t)-1 / element_size / (size_t)dim) {
      snprintf(error, error_size, "'%s': the shape is too large", path);
      goto done;
    }
    count *= (size_t)dim;
    p = next;
  }
  npy->byte_size = count * element_size;

  /* The data are exactly the rest of the file. */
  if (fseek(file, 0, SEEK_END) != 0 || (end = ftell(file)) < 0 ||
      (size_t)end != sizeof prefix + header_len + npy->byte_size) {
    snprintf(error, error_size, "'%s': the file holds %ld bytes, the header "
             "says %zu", path, end, sizeof prefix + header_len + npy->byte_size);
    goto done;
  }
  if (fseek(file, (long)(sizeof prefix + header_len), SEEK_SET) != 0) {
    snprintf(error, error_size, "'%s': %s", path, strerror(errno));
    goto done;
  }
  npy->data = malloc(npy->byte_size ? npy->byte_size : 1);
  if (!npy->data) {
    snprintf(error, error_size, "'%s': out of memory", path);
    goto done;
  }
  if (fread(npy->data, 1, npy->byte_size, file) != npy->byte_size) {
    snprintf(error, error_size, "'%s': short read", path);
    goto done;
  }
  ok = 1;

done:
  if (!ok)
    npy_free(npy);
  fclose(file);
  return ok;
}

/* ---- the program ---------------------------------------------------------- */

static int check(OdtStatus *status) {
  if (!status)
    return 1;
  fprintf(stderr, "train_default: error: %s\n", OdtGetErrorMessage(status));
  OdtReleaseStatus(status);
  return 0;
}

/* A float32 scalar output (the loss). */
static int read_loss(OdtValue *value, float *loss) {
  OdtDataType type;
  size_t count;
  void *data;
  if (!check(OdtGetTensorDataType(value, &type)) ||
      !check(OdtGetTensorElementCount(value, &count)) ||
      !check(OdtGetTensorData(value, &data)))
    return 0;
  if (type != ODT_FLOAT || count != 1) {
    fprintf(stderr, "train_default: error: the first output is not a float "
                    "scalar\n");
    return 0;
  }
  memcpy(loss, data, sizeof *loss);
  return 1;
}

/* The model's inputs (training or eval) from DATA_DIR/<prefix>_<name>.npy,
 * as tensors over the files' data. */
typedef struct Inputs {
  size_t count;
  Npy files[MAX_INPUTS];
  OdtValue *values[MAX_INPUTS];
} Inputs;

static void inputs_free(Inputs *inputs) {
  size_t i;
  for (i = 0; i < inputs->count; ++i) {
    OdtReleaseValue(inputs->values[i]);
    npy_free(&inputs->files[i]);
  }
  inputs->count = 0;
}

static int inputs_load(OdtTrainingSession *session, int training,
                       const char *data_dir, Inputs *inputs) {
  size_t count, i;
  memset(inputs, 0, sizeof *inputs);
  if (!check(training ? OdtGetTrainingModelInputCount(session, &count)
                      : OdtGetEvalModelInputCount(session, &count)))
    return 0;
  if (count > MAX_INPUTS) {
    fprintf(stderr, "train_default: error: %zu inputs, at most %d\n", count,
            MAX_INPUTS);
    return 0;
  }
  for (i = 0; i < count; ++i) {
    const char *name;
    char path[4096], error[4400];
    Npy *file = &inputs->files[i];
    if (!check(training ? OdtGetTrainingModelInputName(session, i, &name)
                        : OdtGetEvalModelInputName(session, i, &name)))
      return 0;
    snprintf(path, sizeof path, "%s/%s_%s.npy", data_dir,
             training ? "train" : "eval", name);
    if (!npy_read(path, file, error, sizeof error)) {
      fprintf(stderr, "train_default: error: input '%s': %s\n", name, error);
      return 0;
    }
    inputs->count = i + 1;
    if (!check(OdtCreateTensorWithData(file->type, file->shape, file->rank,
                                       file->data, file->byte_size,
                                       &inputs->values[i])))
      return 0;
  }
  return 1;
}

int main(int argc, char **argv) {
  const char *model_dir, *data_dir, *out_dir;
  const char *export_outputs[] = {"logits"};
  long steps = 20, step;
  float lr = 0.01f, loss;
  char path[4096];
  size_t output_count = 0, parameter_count = 0, i;
  OdtCheckpointState *state = NULL;
  OdtTrainingSession *session = NULL;
  OdtValue *train_outputs[MAX_INPUTS] = {0}, *eval_outputs[MAX_INPUTS] = {0};
  Inputs train_inputs = {0}, eval_inputs = {0};
  int status = 1;

  if (argc < 4 || argc > 6) {
    fprintf(stderr, "usage: %s MODEL_DIR DATA_DIR OUT_DIR [STEPS [LR]]\n",
            argv[0]);
    return 2;
  }
  model_dir = argv[1];
  data_dir = argv[2];
  out_dir = argv[3];
  if (argc > 4 && ((steps = strtol(argv[4], NULL, 10)) <= 0)) {
    fprintf(stderr, "train_default: error: STEPS must be a positive integer\n");
    return 2;
  }
  if (argc > 5 && !((lr = strtof(argv[5], NULL)) > 0.0f)) {
    fprintf(stderr, "train_default: error: LR must be a positive number\n");
    return 2;
  }

  /* The checkpoint and a session over it. */
  snprintf(path, sizeof path, "%s/checkpoint", data_dir);
#ifdef ODT_EXAMPLE_LINKED_MODEL
  /* The model's code and descriptor are part of this program. */
  {
    OdtLinkedModel linked = default_model_linked_model();
    if (strcmp(model_dir, "linked") != 0) {
      fprintf(stderr, "train_default: error: this build has the model linked "
                      "in: pass \"linked\" as MODEL_DIR\n");
      return 2;
    }
    if (!check(OdtLoadCheckpoint(path, &state)) ||
        !check(OdtCreateTrainingSessionFromLinkedModel(state, &linked, &session)))
      goto cleanup;
  }
#else
  if (!check(OdtLoadCheckpoint(path, &state)) ||
      !check(OdtCreateTrainingSession(state, model_dir, &session)))
    goto cleanup;
#endif
  if (!check(OdtGetParametersSize(session, &parameter_count, true)))
    goto cleanup;
  printf("parameters: %zu (trainable)\n", parameter_count);

  /* Training: TrainStep, OptimizerStep, LazyResetGrad. The first TrainStep
   * allocates the outputs (NULL entries); the later ones write into them. */
  if (!inputs_load(session, 1, data_dir, &train_inputs) ||
      !check(OdtGetTrainingModelOutputCount(session, &output_count)))
    goto cleanup;
  if (output_count == 0 || output_count > MAX_INPUTS) {
    fprintf(stderr, "train_default: error: %zu training outputs\n",
            output_count);
    goto cleanup;
  }
  if (!check(OdtSetLearningRate(session, lr)))
    goto cleanup;
  for (step = 1; step <= steps; ++step) {
    if (!check(OdtTrainStep(session, train_inputs.count,
                            (const OdtValue *const *)train_inputs.values,
                            output_count, train_outputs)) ||
        !read_loss(train_outputs[0], &loss) ||
        !check(OdtOptimizerStep(session)) || !check(OdtLazyResetGrad(session)))
      goto cleanup;
    printf("step %ld loss %.9g\n", step, loss);
  }

  /* Evaluation on held-out data. */
  if (!inputs_load(session, 0, data_dir, &eval_inputs) ||
      !check(OdtGetEvalModelOutputCount(session, &output_count)))
    goto cleanup;
  if (output_count == 0 || output_count > MAX_INPUTS) {
    fprintf(stderr, "train_default: error: %zu eval outputs\n", output_count);
    goto cleanup;
  }
  if (!check(OdtEvalStep(session, eval_inputs.count,
                         (const OdtValue *const *)eval_inputs.values,
                         output_count, eval_outputs)) ||
      !read_loss(eval_outputs[0], &loss))
    goto cleanup;
  printf("eval loss %.9g\n", loss);

  /* The trained state, then an inference model. */
  snprintf(path, sizeof path, "%s/trained.ckpt", out_dir);
  if (!check(OdtSaveCheckpoint(state, path, true)))
    goto cleanup;
  printf("saved %s\n", path);
  snprintf(path, sizeof path, "%s/inference.onnx", out_dir);
  if (!check(OdtExportModelForInferencing(session, path, 1, export_outputs)))
    goto cleanup;
  printf("exported %s\n", path);
  status = 0;

cleanup:
  for (i = 0; i < MAX_INPUTS; ++i) {
    OdtReleaseValue(train_outputs[i]);
    OdtReleaseValue(eval_outputs[i]);
  }
  inputs_free(&train_inputs);
  inputs_free(&eval_inputs);
  /* The session uses the state's parameters: release it first. */
  OdtReleaseTrainingSession(session);
  OdtReleaseCheckpointState(state);
  return status;
}
