/* onnx2c — ahead-of-time compiler from an ONNX model with fixed shapes to one C file.
 *
 * The pipeline, one file per stage:
 *
 *   main.c            command line: load, compile_model, emit, report
 *   pipeline.c        compile_model: the stages below, from bind_shapes to plan_arena, in order
 *                     compile_model_file: load + compile_model, and the --layout=auto memory check
 *   load.c            ONNX file (protobuf-c) -> IR
 *   inline_functions.c  expands model-local functions while loading; splices folded If branches
 *   upgrade_legacy.c  opset <= 6 broadcasting rules rewritten to numpy's (called by infer_shapes)
 *   unroll_loops.c    Loop/Scan with compile-time trip counts, unrolled (called by infer_shapes)
 *   expand_flex_attention.c  FlexAttention as MatMul/Softmax with its graphs spliced in (ditto)
 *   bind_shapes.c     --bind-input / --dim / --shape, refuse unbound symbolic dims
 *   infer_shapes.c    per-node type+shape inference in graph order, folding constants as it goes;
 *                     nodes that stand for others (If, Loop, ...) expand from its table
 *   rewrite.c         the rewrite driver: the passes below are tables of rules (a pattern
 *                     as static data, a callback), applied by rewrite_graph (rewrite.h)
 *   simplify.c        (-O1) drop Identity, Dropout, Mul by 1, Add of 0, Expand before broadcasts;
 *                     x * Sigmoid(x) -> Swish
 *   fuse_qdq.c        (-O1) DequantizeLinear -> Conv/Gemm/MatMul -> QuantizeLinear -> QLinearConv
 *   fuse_gemm.c       (-O1) MatMul+Add, torchlib addmm, Transpose -> Gemm
 *   fuse_gelu.c       (-O1) GELU written out with Erf or Tanh -> one Gelu node
 *   fuse_epilogue.c   (-O1) BatchNorm/affine into Conv/Gemm weights; activations, bias,
 *                     residual Add into the Gemm/Conv that produces their input; elementwise
 *                     chains into their first node (../codegen/emit_chain.c tiles them)
 *   layout_nhwc.c     (--layout nhwc|auto) regions of 2-D convs and the layout-agnostic ops
 *                     between them run on [N][H][W][C] tensors, transposed at their edges
 *   eliminate_dead.c  drop nodes and values no graph output needs
 *   fuse_expand_depthwise.c  (-O1) a channels-last 1x1 conv into the depthwise conv that reads
 *                     its output: one step by rows, the expanded tensor never stored whole
 *   fuse_conv_pool.c  (-O1) a channels-last dense conv into the MaxPool that reads its output:
 *                     one step by bands of rows, the conv's output never stored whole
 *   schedule.c        deterministic topological order
 *   ../codegen/plan_arena.c   offsets in one arena over lifetimes (greedy by size), views share
 *                             their source, elementwise ops run in place on a dying input
 *   ../codegen/emit.c         the C file: weights, kernels, entry points, harness
 *   report.c          --report / --report-json
 *
 * Every op is described once, in the table in ops.c: its shape inference, its constant
 * folding (calling the same template kernel the emitted C calls) and its emitter.
 */
#ifndef ONNX2C_H
#define ONNX2C_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define MAX_RANK        8
#define MAX_KNOWN_OPSET 28 /* the newest opset of the default domain (onnx 1.23) */

/* Element types, numbered as ONNX's TensorProto.DataType. */
typedef enum {
    DT_UNDEFINED = 0,
    DT_FLOAT = 1,
    DT_UINT8 = 2,
    DT_INT8 = 3,
    DT_UINT16 = 4,
    DT_INT16 = 5,
    DT_INT32 = 6,
    DT_INT64 = 7,
    DT_STRING = 8,
    DT_BOOL = 9,
    DT_FLOAT16 = 10,
    DT_DOUBLE = 11,
    DT_UINT32 = 12,
    DT_UINT64 = 13,
    DT_BFLOAT16 = 16,
    /* One byte per element in memory (see templates/lowtypes.c); TensorProtos pack the
     * 4-bit types two and the 2-bit types four to a byte. */
    DT_FLOAT8E4M3FN = 17,
    DT_FLOAT8E4M3FNUZ = 18,
    DT_FLOAT8E5M2 = 19,
    DT_FLOAT8E5M2FNUZ = 20,
    DT_UINT4 = 21,
    DT_INT4 = 22,
    DT_FLOAT4E2M1 = 23,
    DT_FLOAT8E8M0 = 24,
    DT_UINT2 = 25,
    DT_INT2 = 26,
} DType;

typedef struct Node Node;
typedef struct OpDef OpDef;

/* Input `input` of `node` reads the value this entry belongs to. */
typedef struct Use {
    Node *node;
    int input;
} Use;

/* A tensor: graph input, weight, folded constant or intermediate. */
typedef struct Value {
    char *name;
    int id;      /* index in Graph.values; names C symbols */
    DType dtype; /* DT_UNDEFINED until inferred */
    int rank;    /* -1 until inferred */
    int64_t dims[MAX_RANK];
    char *dim_params[MAX_RANK]; /* symbolic dim names from the model (NULL where numeric) */
    void *data;                 /* host data when the value is a compile-time constant */
    bool is_weight;             /* constant from the model file (initializer/Constant) */
    const char *folded_from;    /* a folded constant: the weight it was computed from */
    bool is_input, is_output;
    Node *producer;
    int nusers, cap_users;
    struct Use *users; /* one entry per node input reading this value (node_set_input) */
    /* codegen */
    struct Value *view_of; /* shares the buffer of this value (Reshape, Flatten, ...) */
    const char *cname;     /* emitter override of the C expression (tiles of emit_chain) */
    int64_t offset;        /* arena offset in bytes, -1 if not in the arena */
    /* 0: the value's elements are contiguous; else it is a strided slice of a Concat's output
     * along its last axis (plan_arena): rows of dims[rank-1] elements, row_stride apart */
    int64_t row_stride;
    int first_step, last_step;
    bool referenced; /* the emitted code reads or writes it */
} Value;

typedef enum {
    ATTR_FLOAT,
    ATTR_INT,
    ATTR_STRING,
    ATTR_FLOATS,
    ATTR_INTS,
    ATTR_TENSOR,
    ATTR_GRAPH,
    ATTR_OTHER
} AttrType;

typedef struct Attr {
    char *name;
    AttrType type;
    float f;
    int64_t i;
    char *s;
    int n; /* number of floats / ints */
    float *floats;
    int64_t *ints;
    Value *t;          /* ATTR_TENSOR: a constant value (not in the graph) */
    const void *graph; /* ATTR_GRAPH: the Onnx__GraphProto, spliced in by fold_if */
} Attr;

/* An elementwise node fused into the Gemm/Conv that produces its input: it runs in place on
 * the result, in the producer's step. `node` is the original (retired) node, kept for its
 * emitter and for --emit-onnx; `input` is which of its inputs was the producer's result. Its
 * other inputs (a residual, Clip bounds) are appended to the producer's inputs, so liveness
 * and dead-code elimination see them. */
typedef struct Epilogue {
    Node *node;
    int input;
} Epilogue;

#define MAX_EPILOGUE 8

struct Node {
    char *name;
    char *op_type;
    char *domain;
    int opset; /* version of the node's domain imported by the model */
    const OpDef *op;
    int ninputs, noutputs;
    Value **inputs; /* NULL entries for omitted optional inputs */
    int *use_slot;  /* per input: its entry in inputs[i]->users, for O(1) removal */
    Value **outputs;
    int nattrs;
    Attr *attrs;
    bool dead;
    int64_t order;       /* schedule key: nodes run in ascending order (see node_place_before) */
    struct Scope *scope; /* name scope the node was loaded in (resolves If branches) */
    int nepilogue;
    Epilogue epilogue[MAX_EPILOGUE];
    /* A conv fused before this node: a 1x1 conv before a depthwise conv
     * (fuse_expand_depthwise.c), a dense conv before a MaxPool (fuse_conv_pool.c); the retired
     * node, kept for its weights, epilogues and --emit-onnx; input 0 is now its input, and its
     * output is never stored whole. NULL for none. */
    Node *prologue;
    int64_t scratch_offset; /* arena offset of the node's scratch memory (plan_arena) */
    /* Bytes the node's scratch may take, 0 for no limit: set by plan_arena where the preferred
     * scratch would take the arena over the node-order bound. An op whose working set can
     * shrink (conv bands, recurrent chunks of steps) reads it in its scratch() and emit(). */
    int64_t scratch_budget;
    /* 1 + the input whose buffer output 0 may take when that input dies at the node's step
     * (same type and size, read by no other slot), 0 for none: set by the op's infer (a
     * recurrent layer's Y over its X); elementwise ops have their flag instead */
    int output_over_input;
    bool channels_last; /* layout_nhwc: runs on [N][H][W][C] tensors */
    /* plan_arena: output 0 took the buffer of an input (in place), so the emitted kernel must
     * be one that may run in place (conv: not conv_direct_f32) */
    bool output_in_place;
};

typedef struct Graph {
    int nvalues, cap_values;
    Value **values;
    int nnodes, cap_nodes;
    Node **nodes; /* in schedule order after schedule() */
    int ninputs, noutputs;
    Value **inputs; /* real inputs: graph inputs without an initializer */
    Value **outputs;
    struct ValueMap *by_name;
    int64_t insert_seq;   /* for node_place_before */
    int64_t folded_bytes; /* bytes constant folding has computed, against cc->limits */
    int64_t loaded_bytes; /* bytes of the model's initializers */
} Graph;

typedef struct Model {
    const char *path; /* as given on the command line, for messages */
    void *proto;      /* the Onnx__ModelProto, alive until exit for If branches and functions */
    int64_t ir_version;
    int opset; /* default domain */
    Graph *graph;
    int nodes_before;               /* node count as loaded */
    int64_t node_order_bound_bytes; /* node_order_bound() of the graph after shape inference */
    int ops_before_n;
    struct OpCount *ops_before;
    int64_t code_text_bytes; /* emit_model: C text of the kernels and run functions (no weights) */
} Model;

typedef struct OpCount {
    const char *op;
    int count;
} OpCount;

/* ---- options (main.c) ---- */
typedef enum { GEMM_PORTABLE, GEMM_LIBXSMM } GemmBackend;
typedef enum { LAYOUT_AUTO, LAYOUT_NCHW, LAYOUT_NHWC } Layout; /* --layout */

typedef struct Binding {
    char *name;
    int rank;
    int64_t dims[MAX_RANK];
} Binding;

typedef struct Options {
    const char *input_path;
    const char *output_path;
    const char *header_path;
    const char *name;
    GemmBackend gemm;
    Layout layout;
    bool harness;
    bool report;
    const char *report_json_path;
    const char *emit_onnx_path;
    const char *weights_path; /* --weights: the weights in their own C file */
    const char *dot_path;     /* --dot: Graphviz of the scheduled graph */
    int opt_level;
    int ndims, nshapes, nvalues;
    Binding *dims;   /* --dim SYMBOL=N (rank 1 holds N) */
    Binding *shapes; /* --shape INPUT=AxB */
    struct InputValue {
        const char *name, *path;
    } * values; /* --bind-input INPUT=FILE.pb */
} Options;

/* ---- util.c: memory, errors, strings ---- */
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Limits on what a model may make the compiler do (options --max-*; a hostile model is refused
 * in about a second and a few hundred MB). Folding limits grow to twice the bytes of the model's
 * own initializers, since folding weights (Transpose, DequantizeLinear) is legitimate. */
typedef struct Limits {
    int max_depth;                  /* nesting of graphs in graphs and of function calls */
    int64_t max_nodes;              /* nodes after function inlining and loop unrolling */
    int64_t max_folded_bytes;       /* bytes of any one constant that folding computes */
    int64_t max_total_folded_bytes; /* bytes of all of them */
    int64_t max_arena_bytes;        /* the planned arena */
} Limits;
Limits default_limits(void); /* the command line's */

/* What one compile of the model leaves in the compiler that the next must not see
 * (--layout=auto sets a compile aside while it tries the other layout: compile_model_file):
 * the model's protobuf, the fusions --report counts, the nodes unrolled against their limit, and
 * the counters in the names of new nodes (so that auto writes the file --layout=nchw or nhwc
 * writes). A new per-compile counter belongs here. */
typedef struct CompileState {
    void *proto;         /* load.c: the unpacked Onnx__ModelProto */
    OpCount fusions[32]; /* ir.c: rewrites applied, for --report */
    int nfusions;
    int expansion_counter;  /* inline_functions.c: function calls expanded */
    int64_t unrolled_nodes; /* unroll_loops.c */
    int splice_counter, loop_helper_counter;
    int flex_counter, flex_node_counter; /* expand_flex_attention.c */
    int seq_counter;                     /* ops/sequence.c */
} CompileState;

/* One compilation: everything the compiler keeps while it compiles a model. The caller owns
 * it (main's stack; one per input in the fuzz target) and fills in limits and where errors
 * go; compiler_begin makes it the current one and compiler_end frees every allocation and
 * the unpacked protobuf, so the pipeline runs again from scratch. No other file-scope state
 * is mutable. Passes reach it through `cc` rather than an argument so that fatal() and
 * xcalloc() keep their short signatures in a few thousand call sites. */
typedef struct Compiler {
    Limits limits;
    jmp_buf *fail_jump;     /* when set, errors longjmp there instead of exiting */
    bool silent_errors;     /* errors print nothing (the fuzz target) */
    const char *model_path; /* named by every error line */
    struct Block *blocks;   /* util.c: every x* allocation, freed by compiler_end */
    CompileState state;
    struct Scope *top_scope; /* inline_functions.c: the graph's own names */
    Node **promoted;         /* promote_half.c: nodes half_infer inferred, in order */
    int npromoted, cap_promoted;
    struct LoopState *loop_states; /* unroll_loops.c: loops being unrolled */
    int nloop_states, cap_loop_states;
    struct HalfNode *half_nodes; /* ops/attention.c: Attention nodes promote_half widened */
    int nhalf_nodes;
    struct Seq *seqs; /* ops/sequence.c: the sequences met so far */
    int nseqs, cap_seqs;
    const void *sort_context;   /* what the qsort comparator running now compares (Unique) */
    const char **checked_files; /* load.c: "DIR/LOCATION DIGEST" of external files checked */
    int nchecked_files;
} Compiler;
extern Compiler *cc; /* the current compilation (compiler_begin) */
void compiler_begin(Compiler *c);
void compiler_end(Compiler *c);
_Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void fatal_at(const Node *n, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define unreachable() fatal("internal error at %s:%d", __FILE__, __LINE__)
int64_t checked_mul(const Node *n, int64_t a, int64_t b);
int64_t checked_add(const Node *n, int64_t a, int64_t b);

/* ---- ir.c ---- */
Graph *graph_new(void);
Value *value_new(Graph *g, const char *name);
Value *value_lookup(Graph *g, const char *name);
Value *value_new_unique(Graph *g, const char *base); /* base, or base~2, base~3 ... */
Node *node_new(Graph *g, const char *name, const char *op_type, int ninputs, int noutputs);
const Attr *attr_get(const Node *n, const char *name);
int64_t attr_int(const Node *n, const char *name, int64_t dflt);
float attr_float(const Node *n, const char *name, float dflt);
const char *attr_string(const Node *n, const char *name, const char *dflt);
int attr_ints(const Node *n, const char *name, const int64_t **out); /* -1 when absent */
void attr_set_int(Node *n, const char *name, int64_t v);
void attr_set_float(Node *n, const char *name, float v);
void attr_set_string(Node *n, const char *name, const char *v);
bool value_is_used(const Value *v); /* read by a live node or a graph output */
void node_set_input(Node *n, int i, Value *v);
void node_resize_inputs(Node *n, int ninputs); /* new slots are empty; removed ones released */
void node_retire(Node *n);                     /* dead: its inputs lose their uses */
void value_replace_uses(Value *old, Value *with);
Node *sole_user(const Value *v); /* the one node reading v, if v is not also a graph output */
void number_nodes(Graph *g);     /* order keys from the current array order */
void node_place_before(Graph *g, Node *n, const Node *anchor);
Value *constant_new(Graph *g, const char *name, DType t, int rank, const int64_t *dims);
void record_fusion(const char *name); /* counts a rewrite for --report */
int fusion_counts(const OpCount **out);
size_t dtype_size(DType t);
const char *dtype_name(DType t);
const char *dtype_ctype(DType t);
int dtype_packed_bits(DType t); /* 4 or 2 for types a TensorProto packs, else 0 */
int64_t value_numel(const Value *v);
int64_t value_bytes(const Value *v);
Value *node_input(const Node *n, int i); /* NULL when omitted or out of range */
void set_shape(Value *v, DType t, int rank, const int64_t *dims);
void count_ops(const Graph *g, OpCount **out, int *nout);

/* ---- load.c ---- */
Model *load_model(const char *path);
Model *load_model_bytes(const char *path, const uint8_t *buf, size_t len);
void unload_model(void); /* frees the unpacked protobuf (compiler_end does) */

/* ---- bind_shapes.c ---- */
void bind_input_values(Model *m, const Options *opt); /* --bind-input: inputs become constants */
void bind_shapes(Model *m, const Options *opt);
const char *graph_inputs_feeding(const Value *v); /* "'a', 'b'" or NULL: what v is computed from */

/* ---- ops.c: the op table ---- */
typedef struct Emitter Emitter;
/* Op properties, bits of OpDef.flags: a pass asks for a property, never for an op's name. */
typedef enum OpFlag {
    /* an output that nothing reads and that is not a graph output (RNN's Y when only Y_h is
     * used) is not computed: it gets no buffer, the emitted code passes NULL */
    OP_OPTIONAL_OUTPUTS = 1 << 15,
    OP_VIEW = 1 << 0,        /* output 0 is input 0's buffer, reinterpreted */
    OP_UNARY = 1 << 1,       /* y[i] = f(x[i]); inputs past x are parameters (Clip's bounds) */
    OP_BROADCAST = 1 << 2,   /* operands broadcast numpy-style to the output's shape */
    OP_ELEMENTWISE = 1 << 3, /* may write y over an operand, and tile with the ops fused after it */
    OP_EPILOGUE = 1 << 4,    /* may run in place on a Gemm/Conv result, fused into that step */
    OP_PASS_THROUGH = 1 << 5,     /* y equals input 0 when it has input 0's type and shape */
    OP_SHAPE_ONLY_INPUT = 1 << 6, /* input 1 is read for its type and shape, never its data */
    OP_CAST = 1 << 7, /* converts element types with tensor.c's cast (promote_half: 16-bit ends) */
    OP_HALF = 1 << 8, /* float16/bfloat16 operands: inferred and folded in float32, then run
                       * between Casts (promote_half.c) */
    /* its inputs may be planned as slices of output 0, one after another (Concat, when the
     * axis makes each input one contiguous block of the output): their producers write them
     * in place, and the emitter copies only the inputs that are not there (value_in_slice) */
    OP_INPUT_SLICES = 1 << 9,
    /* output 0 may take the buffer of the input conv_in_place_input() names (Conv: a
     * depthwise conv's x, the residual its kernels add in their tile store) */
    OP_CONV_IN_PLACE = 1 << 10,
    /* output 0 may be a strided slice of a Concat's output along the last axis (its rows
     * Value.row_stride apart) where op_writes_rows() says so (NhwcConv: its kernels' ldy) */
    OP_WRITES_ROWS = 1 << 11,
} OpFlag;
struct OpDef {
    const char *name;
    int min_inputs, max_inputs;
    int min_opset;                     /* oldest opset version whose semantics this implements */
    void (*infer)(Node *n);            /* set output types and shapes, check attributes */
    void (*fold)(Node *n);             /* compute outputs' data from constant inputs */
    void (*emit)(Emitter *e, Node *n); /* write the C that computes the outputs */
    unsigned flags;                    /* OpFlag bits */
    double (*flops)(const Node *n);    /* floating point operations per inference */
    int64_t (*scratch)(const Node *n); /* bytes of temporary arena memory the emitted code needs */
    const char *templates;             /* template files the emitted code calls, space-separated */
};
int conv_in_place_input(const Node *n); /* ops/conv.c: 1 + the input, 0 for none */
bool op_writes_rows(const Node *n);     /* ops/conv_nhwc.c: OP_WRITES_ROWS for this node */
const OpDef *op_lookup(const char *name);
int op_table_entries(const OpDef **out);     /* the whole table, for --list-ops */
bool op_has(const OpDef *op, unsigned flag); /* false for a NULL op */
bool node_has(const Node *n, unsigned flag); /* n's op has the flag */

/* ---- inline_functions.c ---- */
void fold_if(Model *m, int index); /* replace If node `index` by its taken branch */
/* Moves the nodes appended since first_new to just after position at (the expansions of
 * infer_shapes: they run before the nodes that read what they replace). */
void move_new_nodes(Graph *g, int at, int first_new);

/* ---- upgrade_legacy.c: opset <= 6 broadcasting rules (called by infer_shapes) ---- */
bool upgrade_legacy_op(Graph *g, int index); /* true: a Reshape now precedes node `index` */

/* ---- unroll_loops.c: Loop and Scan with compile-time trip counts ---- */
void unroll_loop(Model *m, int index); /* one iteration of Loop `index` now follows it */
void unroll_scan(Model *m, int index); /* ... of Scan `index` */

/* ---- expand_flex_attention.c: FlexAttention (ai.onnx.preview) as standard ops ---- */
void expand_flex_attention(Model *m, int index); /* its nodes now follow node `index` */

/* ---- ops/sequence.c: sequences of static length, resolved into tensor ops (ditto) ---- */
bool is_sequence_op(const Node *n);
bool is_sequence_value(const Value *v);
void expand_sequence_op(Model *m, int index); /* its tensor nodes now follow node `index` */

/* ---- ops/contrib.c: com.microsoft ops as the standard ops they fuse (ditto) ---- */
bool is_contrib_op(const Node *n);
void expand_contrib_op(Model *m, int index); /* its standard nodes now follow node `index` */

/* ---- infer_shapes.c ---- */
void infer_shapes(Model *m);
void promote_half(Graph *g); /* promote_half.c: float16/bfloat16 ops compute in float32 */

/* ---- rewrites (-O1): simplify.c, fuse_qdq.c, fuse_gemm.c, fuse_epilogue.c ---- */
void simplify(Graph *g);
void fuse_qdq(Graph *g);
void fuse_gemm(Graph *g);
void fuse_gelu(Graph *g);
void fuse_epilogues(Graph *g);
void fuse_elementwise(Graph *g);

/* ---- layout_nhwc.c (after the fusions, before eliminate_dead) ---- */
void layout_nhwc(Model *m, Layout layout);

/* ---- eliminate_dead.c / schedule.c ---- */
int eliminate_dead(Graph *g);
void schedule(Graph *g);
/* fuse_expand_depthwise.c (-O1, after eliminate_dead): 1x1 conv -> depthwise conv, by rows */
void fuse_expand_depthwise(Graph *g);
/* fuse_conv_pool.c (-O1, after eliminate_dead): dense conv -> MaxPool, by bands of rows */
void fuse_conv_pool(Graph *g);

/* ---- codegen/plan_arena.c ---- */
typedef struct ArenaPlan {
    int64_t arena_bytes;
    int64_t naive_bytes;       /* sum of every intermediate's size */
    int64_t lower_bound_bytes; /* largest total live at one step */
    int in_place;              /* outputs written into the buffer of a dying input */
    int in_slice;              /* inputs of Concat (OP_INPUT_SLICES) written into its output */
} ArenaPlan;
ArenaPlan plan_arena(Graph *g, int64_t bound); /* bound: node_order_bound() */
int64_t node_order_bound(const Graph *g);      /* bytes a naive plan in the model's order needs */
/* x is planned in place in y's buffer at byte_offset (a Concat input in its slice), so the
 * copy into y is not needed. */
bool value_in_slice(const Value *x, const Value *y, int64_t byte_offset);

/* ---- pipeline.c ---- */
ArenaPlan compile_model(Model *m, const Options *opt); /* bind_shapes ... plan_arena */
Model *compile_model_file(const char *path, const Options *opt,
                          ArenaPlan *plan); /* + layout choice */

/* ---- codegen/emit.c ---- */
typedef struct XsmmKernel {
    int64_t m, n, k, lda, ldb, ldc;
    int64_t panel; /* A packed in row panels of GEMM_XSMM_PANEL (templates/gemm.c), or 0 */
} XsmmKernel;

struct Emitter {
    FILE *out; /* the run function's body while nodes are emitted */
    const Options *opt;
    Graph *graph;
    const char *name; /* symbol prefix */
    int indent;
    XsmmKernel *kernels; /* libxsmm kernels to dispatch in init, deduplicated */
    int nkernels;
    int counter; /* for unique local names */
    Node *node;  /* the node being emitted: emit_constant names what it folds after its inputs */
    int node_first_value; /* graph->nvalues when node's emission began */
};
/* weights, when not NULL, receives the weights' definitions (--weights); out then declares them. */
void emit_model(Model *m, const Options *opt, const ArenaPlan *plan, const char *name, FILE *out,
                FILE *header, FILE *weights);
void println(Emitter *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const char *value_cname(Emitter *e, Value *v); /* C expression of the value's data */
const char *scratch_cname(Emitter *e, const Node *n, DType t, int64_t byte_offset);
const char *c_float(float f);
const char *comment_text(const char *s);                          /* safe inside a C comment */
const char *emit_dims(Emitter *e, int rank, const int64_t *dims); /* static array in the body */
const char *emit_constant(Emitter *e, DType t, int rank, const int64_t *dims, void *data);
void emit_epilogues(Emitter *e, Node *n); /* after a Gemm/Conv: its fused epilogues */
void emit_epilogues_from(Emitter *e, Node *n, int first); /* those from the first-th on */
void emit_chain(Emitter *e, Node *n); /* an elementwise node and its epilogues, tiled */
const char *xsmm_kernel(Emitter *e, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                        int64_t ldc, bool panels);

/* ---- emit_onnx.c ---- */
void write_onnx(FILE *f, const Model *m); /* --emit-onnx; main opens and closes f */

/* ---- report.c ---- */
double model_mflops(const Graph *g);
int64_t model_weight_bytes(const Graph *g);
void print_report(FILE *f, const Model *m, const ArenaPlan *plan);
void write_report_json(FILE *f, const Model *m, const ArenaPlan *plan);
void write_dot(FILE *f, const Model *m);              /* --dot: the scheduled graph for Graphviz */
void write_schedule_comment(FILE *f, const Graph *g); /* the generated file's summary */

#endif
