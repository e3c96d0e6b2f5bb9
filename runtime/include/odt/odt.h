/* odt.h — the C API of odt's training runtime.
 *
 * One function for each function of ONNX Runtime's OrtTrainingApi (see
 * docs/c-api.md for the correspondence), with odt's names and value type.
 * A stable C ABI for every language binding.
 *
 * Errors: every function that can fail returns an OdtStatus*: NULL on
 * success, otherwise an error whose message says what went wrong; release it
 * with OdtReleaseStatus. No function throws or aborts on user input.
 *
 * Ownership: objects returned through `out` parameters belong to the caller
 * and are released with their Release function. Strings and dims returned as
 * `const` pointers belong to the object they came from and stay valid until
 * that object is released (or, for properties, until the property changes).
 *
 * Threads: the functions may be called from any thread, but a training
 * session must not be used by two threads at once, and neither may a
 * checkpoint state (nor the sessions created from it: they share its
 * parameters). A session call made while another thread is inside one on
 * the same session fails with "the session is in use by another thread"
 * (the first call is unaffected); uses of a checkpoint state are not
 * detected. Different states with their own sessions may run in parallel.
 * Values are plain data: a value may be read by several threads at once but
 * must not be written while a session step uses it.
 */

#ifndef ODT_ODT_H
#define ODT_ODT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define ODT_API __attribute__((visibility("default")))
#else
#define ODT_API
#endif

/* Bumped when a function's meaning or signature changes. */
#define ODT_API_VERSION 1

typedef struct OdtStatus OdtStatus;
typedef struct OdtValue OdtValue;
typedef struct OdtCheckpointState OdtCheckpointState;
typedef struct OdtTrainingSession OdtTrainingSession;

/* Element types, numbered as ONNX's TensorProto.DataType. */
typedef enum OdtDataType {
  ODT_UNDEFINED = 0,
  ODT_FLOAT = 1,
  ODT_UINT8 = 2,
  ODT_INT8 = 3,
  ODT_UINT16 = 4,
  ODT_INT16 = 5,
  ODT_INT32 = 6,
  ODT_INT64 = 7,
  ODT_BOOL = 9,
  ODT_FLOAT16 = 10,
  ODT_DOUBLE = 11,
  ODT_UINT32 = 12,
  ODT_UINT64 = 13,
  ODT_BFLOAT16 = 16,
  /* Not a type: makes every int32 a valid value of the enum in C++ too, so
   * that an unknown code from a caller is an error status, not undefined
   * behaviour. */
  ODT_DATA_TYPE_RANGE_MIN = -0x7fffffff - 1,
  ODT_DATA_TYPE_RANGE_MAX = 0x7fffffff
} OdtDataType;

typedef enum OdtPropertyType {
  ODT_INT_PROPERTY = 0,    /* int64_t */
  ODT_FLOAT_PROPERTY = 1,  /* float */
  ODT_STRING_PROPERTY = 2, /* NUL-terminated UTF-8 */
  /* Not a type: every int32 is a valid value (see OdtDataType). */
  ODT_PROPERTY_TYPE_RANGE_MIN = -0x7fffffff - 1,
  ODT_PROPERTY_TYPE_RANGE_MAX = 0x7fffffff
} OdtPropertyType;

/* A model linked into the program (model.o + model.h from odt-compile):
 * model.h defines `<prefix>_linked_model()` that fills this in. */
typedef struct OdtLinkedModel {
  const uint8_t *descriptor;
  uint64_t descriptor_size;
  /* Returns the address of an exported entry symbol, or NULL. */
  void *(*resolve)(void *context, const char *symbol);
  void *context;
} OdtLinkedModel;

/* ---- status ------------------------------------------------------------ */

ODT_API const char *OdtGetErrorMessage(const OdtStatus *status);
ODT_API void OdtReleaseStatus(OdtStatus *status);
/* The API version this library implements (ODT_API_VERSION). */
ODT_API uint32_t OdtGetApiVersion(void);
/* odt's release, "MAJOR.MINOR.PATCH" (static storage; never freed). */
ODT_API const char *OdtGetVersionString(void);

/* ---- values (tensors) ---------------------------------------------------- */

/* A zero-filled tensor that owns its (64-byte aligned) buffer. */
ODT_API OdtStatus *OdtCreateTensor(OdtDataType type, const int64_t *shape,
                                   size_t rank, OdtValue **out);
/* A tensor over caller memory of exactly `byte_size` bytes; the memory must
 * outlive the value. */
ODT_API OdtStatus *OdtCreateTensorWithData(OdtDataType type,
                                           const int64_t *shape, size_t rank,
                                           void *data, size_t byte_size,
                                           OdtValue **out);
/* Beyond ORT's C API (its CUDA OrtMemoryInfo): a tensor over caller memory
 * on `device` ("cuda" or "cuda:N"): `device_data` is a CUdeviceptr of
 * exactly `byte_size` bytes, which must outlive the value. Only a session on
 * that device takes it, as an input of TrainStep or EvalStep: copied on the
 * device into the step's input buffer (no trip through the host). A session
 * on another device or the CPU, an input whose values the runtime checks on
 * the host (token ids), memory that is not that device's, or an allocation
 * smaller than `byte_size` is an error at the step. Nothing is checked here
 * beyond the shape, the size and the device's name: no CUDA call is made. */
ODT_API OdtStatus *OdtCreateTensorWithDeviceData(
    OdtDataType type, const int64_t *shape, size_t rank, const char *device,
    void *device_data, size_t byte_size, OdtValue **out);
/* The CUDA device whose memory holds the value's data, or -1 (host memory:
 * every value but OdtCreateTensorWithDeviceData's). */
ODT_API OdtStatus *OdtGetTensorDevice(const OdtValue *value, int *out);
ODT_API OdtStatus *OdtGetTensorDataType(const OdtValue *value,
                                        OdtDataType *out);
/* `*dims` stays valid while the value lives. */
ODT_API OdtStatus *OdtGetTensorShape(const OdtValue *value, size_t *rank,
                                     const int64_t **dims);
ODT_API OdtStatus *OdtGetTensorElementCount(const OdtValue *value,
                                            size_t *out);
/* The data's address: for a device value (OdtGetTensorDevice >= 0), its
 * device address, which the host must not dereference. */
ODT_API OdtStatus *OdtGetTensorData(OdtValue *value, void **out);
ODT_API void OdtReleaseValue(OdtValue *value);

/* ---- checkpoint state ---------------------------------------------------- */

/* ORT: LoadCheckpoint. Reads an ODTC v2 checkpoint (ORT's format). */
ODT_API OdtStatus *OdtLoadCheckpoint(const char *path,
                                     OdtCheckpointState **out);
/* ORT: LoadCheckpointFromBuffer. The bytes are copied. */
ODT_API OdtStatus *OdtLoadCheckpointFromBuffer(const void *data, size_t size,
                                               OdtCheckpointState **out);
/* ORT: SaveCheckpoint. Atomic: on failure the previous file is intact. */
ODT_API OdtStatus *OdtSaveCheckpoint(OdtCheckpointState *state,
                                     const char *path,
                                     bool include_optimizer_state);
/* ORT: AddProperty. Adds or replaces a property; `value` points to an
 * int64_t, a float or a NUL-terminated string. Names starting with "odt."
 * are odt's own (learning rate, scheduler) and cannot be set. */
ODT_API OdtStatus *OdtAddProperty(OdtCheckpointState *state, const char *name,
                                  OdtPropertyType type, const void *value);
/* ORT: GetProperty. `*value` points to an int64_t, a float or a string owned
 * by the state. */
ODT_API OdtStatus *OdtGetProperty(const OdtCheckpointState *state,
                                  const char *name, OdtPropertyType *type,
                                  const void **value);
/* ORT: GetParameterTypeAndShape. `*dims` is owned by the state. A nominal
 * parameter has rank 0 and dims NULL until it gets values. */
ODT_API OdtStatus *OdtGetParameterTypeAndShape(const OdtCheckpointState *state,
                                               const char *name,
                                               OdtDataType *type, size_t *rank,
                                               const int64_t **dims);
/* ORT: UpdateParameter. Copies `value` into the parameter (same dtype; same
 * shape unless the parameter has no values yet). */
ODT_API OdtStatus *OdtUpdateParameter(OdtCheckpointState *state,
                                      const char *name, const OdtValue *value);
/* ORT: GetParameter. A new tensor holding a copy of the parameter. */
ODT_API OdtStatus *OdtGetParameter(const OdtCheckpointState *state,
                                   const char *name, OdtValue **out);
/* Beyond ORT's C API (its Python CheckpointState.parameters and
 * .properties mappings): the state's parameters and properties by index.
 * Parameters are in file order (trainable first, then frozen; each sorted
 * by name), properties sorted by name, odt's own ("odt.") included. A name
 * is owned by the state and stays valid until the state is released (a
 * property name: until a property is added). */
ODT_API OdtStatus *OdtGetParameterCount(const OdtCheckpointState *state,
                                        size_t *out);
ODT_API OdtStatus *OdtGetParameterName(const OdtCheckpointState *state,
                                       size_t index, const char **out);
ODT_API OdtStatus *OdtGetPropertyCount(const OdtCheckpointState *state,
                                       size_t *out);
ODT_API OdtStatus *OdtGetPropertyName(const OdtCheckpointState *state,
                                      size_t index, const char **out);
/* Beyond ORT's C API (its Python Parameter.requires_grad and .grad): whether
 * the parameter is trained, and a new tensor holding a copy of its gradient
 * buffer; `*out` is NULL when it has none (a frozen parameter, or no
 * session has been created on the state yet). */
ODT_API OdtStatus *OdtGetParameterRequiresGrad(const OdtCheckpointState *state,
                                               const char *name, bool *out);
ODT_API OdtStatus *OdtGetParameterGradient(const OdtCheckpointState *state,
                                           const char *name, OdtValue **out);
/* ORT: ReleaseCheckpointState. */
ODT_API void OdtReleaseCheckpointState(OdtCheckpointState *state);

/* ---- training session ---------------------------------------------------- */

/* ORT: CreateTrainingSession. `compiled_model` is odt-compile's output folder
 * (or its libmodel.so). The session uses the state's parameters in place; the
 * state must outlive it. */
ODT_API OdtStatus *OdtCreateTrainingSession(OdtCheckpointState *state,
                                            const char *compiled_model,
                                            OdtTrainingSession **out);
/* ORT: CreateTrainingSessionFromBuffer. `library` holds the bytes of a
 * libmodel.so made by odt-compile. */
ODT_API OdtStatus *OdtCreateTrainingSessionFromBuffer(
    OdtCheckpointState *state, const void *library, size_t size,
    OdtTrainingSession **out);
/* Beyond ORT (its SessionOptions' execution providers): a session whose
 * steps run on `device`: "cpu" (what OdtCreateTrainingSession makes), "cuda"
 * (device 0) or "cuda:N". A CUDA device is opened here, its driver loaded at
 * run time (libcuda.so.1, or the file ODT_CUDA_DRIVER names; nothing links
 * CUDA): a machine without a driver or device, a wrong N, or the CUDA
 * toolkit's stub libcuda is an error naming the cause. On a CUDA device the
 * model must be a GPU build (odt-compile --gpu-arch=...) with kernels for the
 * device's chip or an older one; the session's state then lives on the
 * device and is copied back when the host reads it (docs/gpu.md). */
ODT_API OdtStatus *OdtCreateTrainingSessionOnDevice(OdtCheckpointState *state,
                                                    const char *compiled_model,
                                                    const char *device,
                                                    OdtTrainingSession **out);
/* A model linked into the program (see OdtLinkedModel). */
ODT_API OdtStatus *OdtCreateTrainingSessionFromLinkedModel(
    OdtCheckpointState *state, const OdtLinkedModel *model,
    OdtTrainingSession **out);
/* ORT: ReleaseTrainingSession. */
ODT_API void OdtReleaseTrainingSession(OdtTrainingSession *session);

/* ORT: TrainingSessionGet{Training,Eval}Model{Input,Output}{Count,Name}.
 * User inputs and outputs only; names are owned by the session. */
ODT_API OdtStatus *OdtGetTrainingModelInputCount(const OdtTrainingSession *s,
                                                 size_t *out);
ODT_API OdtStatus *OdtGetTrainingModelInputName(const OdtTrainingSession *s,
                                                size_t index,
                                                const char **out);
ODT_API OdtStatus *OdtGetTrainingModelOutputCount(const OdtTrainingSession *s,
                                                  size_t *out);
ODT_API OdtStatus *OdtGetTrainingModelOutputName(const OdtTrainingSession *s,
                                                 size_t index,
                                                 const char **out);
ODT_API OdtStatus *OdtGetEvalModelInputCount(const OdtTrainingSession *s,
                                             size_t *out);
ODT_API OdtStatus *OdtGetEvalModelInputName(const OdtTrainingSession *s,
                                            size_t index, const char **out);
ODT_API OdtStatus *OdtGetEvalModelOutputCount(const OdtTrainingSession *s,
                                              size_t *out);
ODT_API OdtStatus *OdtGetEvalModelOutputName(const OdtTrainingSession *s,
                                             size_t index, const char **out);

/* ORT: TrainStep / EvalStep. `inputs` in the model's input order. For each
 * output, a NULL entry receives a new tensor (the caller releases it); a
 * non-NULL entry must be a tensor of the output's dtype and shape and is
 * written in place. */
ODT_API OdtStatus *OdtTrainStep(OdtTrainingSession *session,
                                size_t inputs_len,
                                const OdtValue *const *inputs,
                                size_t outputs_len, OdtValue **outputs);
ODT_API OdtStatus *OdtEvalStep(OdtTrainingSession *session, size_t inputs_len,
                               const OdtValue *const *inputs,
                               size_t outputs_len, OdtValue **outputs);
/* ORT: LazyResetGrad. The next TrainStep overwrites the gradients. */
ODT_API OdtStatus *OdtLazyResetGrad(OdtTrainingSession *session);
/* ORT: OptimizerStep. Fails before the session's first TrainStep: there
 * are no gradients to apply (ORT counts a step of zero gradients). */
ODT_API OdtStatus *OdtOptimizerStep(OdtTrainingSession *session);
/* ORT: SetLearningRate / GetLearningRate. The current learning rate is kept
 * in the checkpoint (beyond ORT) and restored on load. */
ODT_API OdtStatus *OdtSetLearningRate(OdtTrainingSession *session,
                                      float learning_rate);
ODT_API OdtStatus *OdtGetLearningRate(OdtTrainingSession *session,
                                      float *out);
/* ORT: RegisterLinearLRScheduler. */
ODT_API OdtStatus *OdtRegisterLinearLRScheduler(OdtTrainingSession *session,
                                                int64_t warmup_step_count,
                                                int64_t total_step_count,
                                                float initial_lr);
/* Beyond ORT: cosine decay after a linear warm-up (Hugging Face's
 * get_cosine_schedule_with_warmup) and a constant rate after one. */
ODT_API OdtStatus *OdtRegisterCosineLRScheduler(OdtTrainingSession *session,
                                                int64_t warmup_step_count,
                                                int64_t total_step_count,
                                                float initial_lr,
                                                double num_cycles);
ODT_API OdtStatus *OdtRegisterConstantLRScheduler(OdtTrainingSession *session,
                                                  int64_t warmup_step_count,
                                                  float initial_lr);
/* ORT: SchedulerStep. */
ODT_API OdtStatus *OdtSchedulerStep(OdtTrainingSession *session);

/* ORT: GetParametersSize / CopyParametersToBuffer / CopyBufferToParameters.
 * Parameters in training-graph input order, frozen ones skipped when
 * trainable_only; the buffer holds exactly GetParametersSize elements of the
 * parameters' dtype. CopyBufferToParameters with trainable_only = false
 * completes a nominal state. */
ODT_API OdtStatus *OdtGetParametersSize(OdtTrainingSession *session,
                                        size_t *out, bool trainable_only);
ODT_API OdtStatus *OdtCopyParametersToBuffer(OdtTrainingSession *session,
                                             OdtValue *buffer,
                                             bool trainable_only);
ODT_API OdtStatus *OdtCopyBufferToParameters(OdtTrainingSession *session,
                                             const OdtValue *buffer,
                                             bool trainable_only);

/* ORT: ExportModelForInferencing. Writes an ONNX inference model: the eval
 * graph pruned to `output_names`, parameters as initializers with their
 * current values. */
ODT_API OdtStatus *OdtExportModelForInferencing(
    OdtTrainingSession *session, const char *inference_model_path,
    size_t output_names_len, const char *const *output_names);

/* ORT: SetSeed. Seeds odt's random number generation (Dropout masks) for
 * every session, in this and later calls: each session takes the seed at
 * its next step and restarts its step counter, so a given seed gives the
 * same masks on any thread count. Masks change every step. A session
 * created from a checkpoint saved after Dropout steps continues the saved
 * sequence (properties odt.random_seed and odt.random_step) unless SetSeed
 * is called after it is created. Without SetSeed the seed is 0. */
ODT_API OdtStatus *OdtSetSeed(int64_t seed);

/* Beyond ORT (its SessionOptions::SetIntraOpNumThreads): the number of
 * threads the session's compiled parallel loops use in TrainStep, EvalStep
 * and OptimizerStep, the calling thread included; 0 (the default) means one
 * per core. The session's worker threads are started by this call (and at
 * session creation), never inside a step. */
ODT_API OdtStatus *OdtSetSessionThreads(OdtTrainingSession *session,
                                        int threads);
ODT_API OdtStatus *OdtGetSessionThreads(const OdtTrainingSession *session,
                                        int *out);
/* Beyond ORT (its session option session.set_denormal_as_zero, off there):
 * whether TrainStep, EvalStep and OptimizerStep run with denormal floats
 * (below 1.2e-38) flushed to zero. On by default: on x86 each operation on a
 * denormal costs a microcode assist of ~100 cycles, and AdamW's moments
 * decay through that range once a parameter's gradients become tiny or zero
 * (an optimizer step measured 9x slower). Off gives IEEE denormals. The
 * caller's own floating-point mode is restored after each step. */
ODT_API OdtStatus *OdtSetSessionFlushDenormals(OdtTrainingSession *session,
                                               bool flush);
ODT_API OdtStatus *OdtGetSessionFlushDenormals(
    const OdtTrainingSession *session, bool *out);
/* Beyond ORT: whether OdtTrainStep fails when the loss (the training
 * model's first output, a float scalar) is NaN or infinite (default off:
 * ORT goes on). The failed step's gradients are accumulated; the optimizer
 * has not run, so the parameters are the last finite ones, and
 * OdtLazyResetGrad discards the bad gradients. */
ODT_API OdtStatus *OdtSetSessionStopOnNonFiniteLoss(
    OdtTrainingSession *session, bool stop);
ODT_API OdtStatus *OdtGetSessionStopOnNonFiniteLoss(
    const OdtTrainingSession *session, bool *out);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ODT_ODT_H */
