// Checks that every tile call checks its matrices before it submits anything, in the four
// precisions: a matrix of another runtime than the sequence's throws InvalidArgument naming
// it, and the call changes nothing (posv does not factor A for a B it cannot solve); the
// blocking forms check their inputs, options included, even when the output is empty; a
// wrapped array's lda must fit the BLAS's int; a 1 x 1 positive definite matrix cannot have a
// condition number other than 1; the conversions check lda even when there is nothing to copy;
// a tile partitioned or unregistered by the application is named before anything is submitted;
// a submission that still throws fails its sequence; failed_call() names the call that failed.
#include "accuracy/accuracy.hpp"
#include "common/runtime_sweep.hpp"

#include <functional>
#include <limits>
#include <string>

namespace tessera::test {
namespace {

/// The message of the InvalidArgument that call() throws; "" when it throws nothing.
std::string invalid_argument_of(std::function<void()> const& call)
{
    try {
        call();
    } catch (tessera::InvalidArgument const& e) {
        return e.what();
    }
    return "";
}

class TileOperands : public PrecisionSweep {};

// A tile the application partitioned or unregistered is named by the call, which submits
// nothing: the matrix and the sequence stay as they were.
TEST_P(TileOperands, ATilePartitionedOrUnregisteredIsNamedAndNothingChanges)
{
    with_precision([&]<class T>() {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 1}};
        const Dense<T> A0 = hpd_dense<T>(8, 5);
        auto A = tiles_of(r, A0, 2);
        tessera::Sequence s{r};
        {
            auto halves = rt::partition(A(3, 3), rt::row_blocks(2));
            EXPECT_EQ(invalid_argument_of([&] { tessera::potrf_async(Uplo::lower, A, s); }),
                      "potrf: tile (3, 3) of A is partitioned: unpartition it first");
            EXPECT_EQ(invalid_argument_of([&] { (void)tessera::potri(Uplo::lower, A); }),
                      "potri: tile (3, 3) of A is partitioned: unpartition it first");
            EXPECT_FALSE(s.failed());
        }
        EXPECT_EQ(s.wait(), 0);
        EXPECT_EQ(norm1_diff(to_dense(A), A0), 0.0);
        auto moved_out = std::move(A(1, 2));
        EXPECT_EQ(invalid_argument_of([&] { tessera::potrf_async(Uplo::upper, A, s); }),
                  "potrf: tile (1, 2) of A is not registered");
        A(1, 2) = std::move(moved_out);
        tessera::potrf_async(Uplo::lower, A, s);  // the same calls, once the tiles are whole again
        EXPECT_EQ(s.wait(), 0);
    });
}

// A matrix a call writes must not share elements with another of the call's (BLAS's kernels
// would read what they overwrite): the same matrix twice, overlapping views and wraps of one
// array whose elements meet are refused, naming both matrices, and nothing changes. Reading
// one matrix twice, disjoint views and disjoint wraps of one array are served.
TEST_P(TileOperands, AWrittenMatrixThatOverlapsAnotherIsNamedAndNothingChanges)
{
    with_precision([&]<class T>() {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 1}};
        const T one = T(real_t<T>(1));
        const std::string rule =
            ": a matrix the call writes must not overlap another of its matrices";
        const Dense<T> P0 = random_dense<T>(4, 4, 7);
        auto P = tiles_of(r, P0, 2);
        auto top_left = P.sub(0, 0, 1, 1), top_right = P.sub(0, 1, 1, 1),
             bottom_right = P.sub(1, 1, 1, 1);
        auto top_row = P.sub(0, 0, 1, 2), left_column = P.sub(0, 0, 2, 1);
        EXPECT_EQ(invalid_argument_of(
                      [&] { tessera::gemm(Op::notrans, Op::notrans, one, P, P, T(0), P); }),
                  "gemm: C shares elements with A" + rule);
        EXPECT_EQ(invalid_argument_of([&] {
                      tessera::gemm(Op::notrans, Op::notrans, one, top_left, top_right, one,
                                    top_right);
                  }),
                  "gemm: C shares elements with B" + rule);
        EXPECT_EQ(invalid_argument_of([&] {
                      tessera::symm(Side::left, Uplo::lower, one, top_left, top_right, one,
                                    top_right);
                  }),
                  "symm: C shares elements with B" + rule);
        EXPECT_EQ(invalid_argument_of(
                      [&] { tessera::syrk(Uplo::lower, Op::notrans, one, left_column, one, P); }),
                  "syrk: C shares elements with A" + rule);
        EXPECT_EQ(invalid_argument_of([&] {
                      tessera::trsm(Side::left, Uplo::lower, Op::notrans, Diag::unit, one, P, P);
                  }),
                  "trsm: B shares elements with A" + rule);
        EXPECT_EQ(invalid_argument_of([&] {
                      tessera::trmm(Side::right, Uplo::upper, Op::notrans, Diag::nonunit, one, P,
                                    P);
                  }),
                  "trmm: B shares elements with A" + rule);
        EXPECT_EQ(invalid_argument_of([&] { tessera::potrs(Uplo::lower, top_left, top_row); }),
                  "potrs: B shares elements with A" + rule);
        EXPECT_EQ(invalid_argument_of([&] { (void)tessera::posv(Uplo::lower, top_left, top_row); }),
                  "posv: A shares elements with B" + rule);
        EXPECT_EQ(norm1_diff(to_dense(P), P0), 0.0) << "a refused call changed P";

        // top_right += top_left bottom_right: disjoint views of one matrix
        Dense<T> E = P0;
        blas::gemm<T>(Op::notrans, Op::notrans, 2, 2, 2, one, E.data(), E.ld,
                      E.data() + 2 + 2 * E.ld, E.ld, one, E.data() + 2 * E.ld, E.ld);
        tessera::gemm(Op::notrans, Op::notrans, one, top_left, bottom_right, one, top_right);
        EXPECT_LE(norm1_diff(to_dense(P), E), 8 * eps<T>() * (norm1(P0) * norm1(P0) + norm1(P0)));
        EXPECT_NO_THROW(
            tessera::gemm(Op::notrans, Op::conjtrans, one, top_left, top_left, one, bottom_right));

        // wraps of one array (lda = 8): rows 0-3 and 4-7 share no element, columns 0-3 and rows 0-3 do
        std::vector<T> a(8 * 8, T(0));
        auto A = tessera::TileMatrix<T>::wrap(r, a.data(), 4, 4, 8, 4);
        auto bottom = tessera::TileMatrix<T>::wrap(r, a.data() + 4, 4, 8, 8, 4);
        auto top = tessera::TileMatrix<T>::wrap(r, a.data(), 4, 8, 8, 4);
        EXPECT_NO_THROW(
            tessera::trsm(Side::left, Uplo::lower, Op::notrans, Diag::unit, one, A, bottom));
        EXPECT_EQ(invalid_argument_of([&] {
                      tessera::trsm(Side::left, Uplo::lower, Op::notrans, Diag::unit, one, A, top);
                  }),
                  "trsm: B shares elements with A" + rule);
    });
}

// A submission that still throws (a handle partitioned under the sequence's own submit) fails
// the sequence with that exception: the tasks submitted before it and later calls do not run
// on alone, and wait() reports it.
TEST_P(TileOperands, ASubmissionThatThrowsFailsTheSequence)
{
    with_precision([&]<class T>() {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 1}};
        const Dense<T> B0 = random_dense<T>(4, 4, 6);
        auto B = tiles_of(r, B0, 2);
        const rt::Codelet<rt::Matrix<T>> negate{
            .name = "negate", .cpu = +[](rt::Matrix<T> b) { b.ptr[0] = -b.ptr[0]; }};
        tessera::Sequence s{r};
        {
            Gate gate;  // holds the only worker until the failure is known
            auto opener = gate.opener();
            const rt::Codelet<Gate*> hold{.name = "hold", .cpu = &gate_cpu};
            r.submit(hold, rt::value(&gate));
            ASSERT_TRUE(gate.wait_entered());
            s.submit(negate, rt::readwrite(B(0, 0)));
            auto halves = rt::partition(B(1, 1), rt::row_blocks(2));
            EXPECT_THROW(s.submit(negate, rt::readwrite(B(1, 1))), tessera::InvalidArgument);
            EXPECT_TRUE(s.failed());
        }
        tessera::scale_async(T(2), B, s);  // submits nothing
        EXPECT_THROW((void)s.wait(), tessera::InvalidArgument);
        EXPECT_EQ(norm1_diff(to_dense(B), B0), 0.0) << "a task of the failed sequence ran";
        ASSERT_TRUE(s.failed_call().has_value());
        EXPECT_EQ(s.failed_call()->routine, "negate");  // a task submitted outside a call is one
        EXPECT_EQ(s.failed_call()->number, 2);
    });
}

// failed_call() names the call that failed, as the user made it: posv, not the potrf inside
// it; a task that throws names its call too; a sequence that did not fail names none.
TEST_P(TileOperands, FailedCallNamesTheCallThatFailed)
{
    with_precision([&]<class T>() {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 2}};
        Dense<T> bad = hpd_dense<T>(24, 5);
        bad(17, 17) = T(-1);
        auto A = tiles_of(r, hpd_dense<T>(24, 3), 8);
        auto B = tiles_of(r, random_dense<T>(24, 3, 4), 8);
        auto S = tiles_of(r, bad, 8);
        {
            tessera::Sequence s{r};
            tessera::potrf_async(Uplo::lower, A, s);
            tessera::potrs_async(Uplo::lower, A, B, s);
            EXPECT_EQ(s.wait(), 0);
            EXPECT_FALSE(s.failed_call().has_value()) << s.failed_call()->routine;
        }
        {
            tessera::Sequence s{r};
            tessera::scale_async(T(2), A, s);
            EXPECT_THROW(tessera::potrf_async(Uplo::lower, B, s),
                         tessera::InvalidArgument);  // not counted
            tessera::posv_async(Uplo::upper, S, B, s);
            EXPECT_EQ(s.wait(), 18);
            ASSERT_TRUE(s.failed_call().has_value());
            EXPECT_EQ(s.failed_call()->routine, "posv");
            EXPECT_EQ(s.failed_call()->number, 2);
        }
        {
            Dense<T> singular =
                hpd_dense<T>(24, 6);  // as a triangle: trtri's info is the zero's place
            singular(17, 17) = T(0);
            auto Z = tiles_of(r, singular, 8);
            tessera::Sequence s{r};
            tessera::potri_async(Uplo::lower, Z,
                                 s);  // its trtri's tasks look for the smallest info
            EXPECT_EQ(s.wait(), 18);
            ASSERT_TRUE(s.failed_call().has_value());
            EXPECT_EQ(s.failed_call()->routine, "potri");
            EXPECT_EQ(s.failed_call()->number, 1);
        }
        {
            const rt::Codelet<rt::Matrix<T>> fail{.name = "fail", .cpu = +[](rt::Matrix<T>) {
                                                      throw tessera::Error("fail: as asked");
                                                  }};
            tessera::Sequence s{r};
            tessera::scale_async(T(2), A, s);
            s.submit(fail, rt::readwrite(B(0, 0)));
            tessera::scale_async(T(2), B, s);
            EXPECT_THROW((void)s.wait(), tessera::Error);
            ASSERT_TRUE(s.failed_call().has_value());
            EXPECT_EQ(s.failed_call()->routine, "fail");
            EXPECT_EQ(s.failed_call()->number, 2);
        }
    });
}

TEST_P(TileOperands, AMatrixOfAnotherRuntimeIsNamedAndNothingChanges)
{
    with_precision([&]<class T>() {
        rt::Runtime mine{rt::RuntimeConfig{.ncpus = 1}}, other{rt::RuntimeConfig{.ncpus = 1}};
        const Dense<T> A0 = hpd_dense<T>(4, 3), B0 = random_dense<T>(4, 2, 4);
        auto A = tiles_of(mine, A0, 2);
        auto B = tiles_of(other, B0, 2);
        auto C = tiles_of(mine, B0, 2);
        const T one(1);
        tessera::Sequence s{mine};
        auto names = [](std::string const& message, std::string const& routine,
                        std::string const& name) {
            return message.rfind(routine + ": " + name + " lives on another runtime", 0) == 0;
        };
        using tessera::Op, tessera::Side;
        EXPECT_PRED3(names, invalid_argument_of([&] { tessera::posv_async(Uplo::lower, A, B, s); }),
                     "posv", "B");
        EXPECT_PRED3(names, invalid_argument_of([&] { (void)tessera::posv(Uplo::lower, A, B); }),
                     "posv", "B");
        EXPECT_PRED3(names,
                     invalid_argument_of([&] { tessera::potrs_async(Uplo::lower, A, B, s); }),
                     "potrs", "B");
        EXPECT_PRED3(names, invalid_argument_of([&] {
                         tessera::gemm_async(Op::notrans, Op::notrans, one, A, B, one, C, s);
                     }),
                     "gemm", "B");
        EXPECT_PRED3(names, invalid_argument_of([&] {
                         tessera::symm_async(Side::left, Uplo::lower, one, A, B, one, C, s);
                     }),
                     "symm", "B");
        EXPECT_PRED3(names, invalid_argument_of([&] {
                         tessera::syrk_async(Uplo::lower, Op::notrans, one, B, one, A, s);
                     }),
                     "syrk", "A");
        EXPECT_PRED3(names, invalid_argument_of([&] {
                         tessera::trsm_async(Side::left, Uplo::lower, Op::notrans, Diag::nonunit,
                                             one, A, B, s);
                     }),
                     "trsm", "B");
        EXPECT_PRED3(names, invalid_argument_of([&] {
                         tessera::trmm_async(Side::left, Uplo::lower, Op::notrans, Diag::nonunit,
                                             one, A, B, s);
                     }),
                     "trmm", "B");
        tessera::Sequence elsewhere{other};
        EXPECT_PRED3(names,
                     invalid_argument_of([&] { tessera::potrf_async(Uplo::lower, A, elsewhere); }),
                     "potrf", "A");
        EXPECT_PRED3(names,
                     invalid_argument_of([&] { tessera::potri_async(Uplo::lower, A, elsewhere); }),
                     "potri", "A");
        EXPECT_PRED3(names, invalid_argument_of([&] {
                         tessera::trtri_async(Uplo::lower, Diag::nonunit, A, elsewhere);
                     }),
                     "trtri", "A");
        EXPECT_PRED3(names,
                     invalid_argument_of([&] { tessera::lauum_async(Uplo::lower, A, elsewhere); }),
                     "lauum", "A");
        EXPECT_PRED3(names, invalid_argument_of([&] { tessera::scale_async(one, A, elsewhere); }),
                     "scale", "A");
        EXPECT_PRED3(names,
                     invalid_argument_of([&] { tessera::generate_random_async(A, 1, elsewhere); }),
                     "generate_random", "A");
        EXPECT_PRED3(
            names, invalid_argument_of([&] { tessera::generate_hpd_async(A, 2.0, 1, elsewhere); }),
            "generate_hpd", "A");
        std::vector<T> a(16);
        EXPECT_PRED3(names, invalid_argument_of([&] {
                         tessera::tiles_to_lapack_async(A, a.data(), 4, elsewhere);
                     }),
                     "tiles_to_lapack", "A");
        EXPECT_PRED3(names, invalid_argument_of([&] {
                         tessera::lapack_to_tiles_async(a.data(), 4, A, elsewhere);
                     }),
                     "lapack_to_tiles", "A");
        real_t<T> value = 0;
        EXPECT_PRED3(names, invalid_argument_of([&] {
                         tessera::norm_async(tessera::Norm::one, A, &value, elsewhere);
                     }),
                     "norm", "A");
        EXPECT_EQ(s.wait(), 0);
        EXPECT_EQ(elsewhere.wait(), 0);
        EXPECT_EQ(norm1_diff(to_dense(A), A0), 0.0) << "A changed";
        EXPECT_EQ(norm1_diff(to_dense(B), B0), 0.0) << "B changed";
        EXPECT_EQ(norm1_diff(to_dense(C), B0), 0.0) << "C changed";
    });
}

TEST_P(TileOperands, TheBlockingFormsCheckTheirInputsWhenTheOutputIsEmpty)
{
    with_precision([&]<class T>() {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 1}};
        tessera::TileMatrix<T> A{r, 4, 4, 2}, B{r, 5, 3, 2}, empty;
        const T one(1);
        using tessera::Op, tessera::Side;
        auto throws = [](std::function<void()> const& call) {
            return !invalid_argument_of(call).empty();
        };
        // op(A) 4 x 4 and op(B) 5 x 3 do not multiply, whatever C
        EXPECT_TRUE(
            throws([&] { tessera::gemm(Op::notrans, Op::notrans, one, A, B, one, empty); }));
        // A of order 4 for C's 0 rows
        EXPECT_TRUE(throws([&] { tessera::symm(Side::left, Uplo::lower, one, A, B, one, empty); }));
        EXPECT_TRUE(throws([&] { tessera::hemm(Side::left, Uplo::lower, one, A, B, one, empty); }));
        // op(A) has 4 rows, C has order 0
        EXPECT_TRUE(throws([&] { tessera::syrk(Uplo::lower, Op::notrans, one, A, one, empty); }));
        EXPECT_TRUE(throws([&] {
            tessera::herk(Uplo::lower, Op::notrans, real_t<T>(1), A, real_t<T>(1), empty);
        }));
        // A of order 4 for B's 0 rows
        EXPECT_TRUE(throws([&] {
            tessera::trsm(Side::left, Uplo::lower, Op::notrans, Diag::nonunit, one, A, empty);
        }));
        EXPECT_TRUE(throws([&] {
            tessera::trmm(Side::left, Uplo::lower, Op::notrans, Diag::nonunit, one, A, empty);
        }));
        // bad options with nothing to compute
        tessera::TileMatrix<T> none;
        EXPECT_TRUE(throws([&] {
            tessera::trsm(Side::left, Uplo::lower, Op::notrans, Diag('X'), one, none, none);
        }));
        EXPECT_TRUE(throws(
            [&] { tessera::trmm(Side::left, Uplo::lower, Op('X'), Diag::unit, one, none, none); }));
        EXPECT_FALSE(
            throws([&] { tessera::gemm(Op::notrans, Op::notrans, one, none, none, one, none); }));
        EXPECT_NE(invalid_argument_of([&] {
                      tessera::gemm(Op('X'), Op::notrans, one, none, none, one, none);
                  }).find("transa"),
                  std::string::npos);
        EXPECT_NE(invalid_argument_of([&] {
                      tessera::gemm(Op::trans, Op('X'), one, none, none, one, none);
                  }).find("transb"),
                  std::string::npos);
        EXPECT_TRUE(throws([&] { (void)tessera::potrf(Uplo::general, none); }));
        EXPECT_TRUE(throws([&] { (void)tessera::potri(Uplo::general, none); }));
        EXPECT_TRUE(throws([&] { tessera::generate_hpd(none, 0.5, 1); }));
    });
}

TEST_P(TileOperands, WrapConversionsAndGeneratorsCheckWhatTheyCannotServe)
{
    with_precision([&]<class T>() {
        rt::Runtime r{rt::RuntimeConfig{.ncpus = 1}};
        std::vector<T> a(16);
        using TM = tessera::TileMatrix<T>;
        // an m x 1 array spans m elements whatever lda, but the kernels' BLAS take lda as int
        const int64_t too_far = int64_t(std::numeric_limits<int>::max()) + 1;
        EXPECT_NE(
            invalid_argument_of([&] { (void)TM::wrap(r, a.data(), 4, 1, too_far, 2); }).find("lda"),
            std::string::npos);
        EXPECT_NO_THROW((void)TM::wrap(r, a.data(), 4, 1, std::numeric_limits<int>::max(), 2));
        // a 1 x 1 matrix has condition number 1
        TM one_by_one{r, 1, 1, 1};
        EXPECT_NE(
            invalid_argument_of([&] { tessera::generate_hpd(one_by_one, 10, 1); }).find("kappa"),
            std::string::npos);
        EXPECT_NO_THROW(tessera::generate_hpd(one_by_one, 1, 1));
        // lda >= max(1, m), as LAPACK checks it, even with no column to copy
        TM no_columns{r, 4, 0, 2};
        EXPECT_NE(invalid_argument_of([&] {
                      tessera::lapack_to_tiles(a.data(), 3, no_columns);
                  }).find("lda"),
                  std::string::npos);
        EXPECT_NE(invalid_argument_of([&] {
                      tessera::tiles_to_lapack(no_columns, a.data(), 3);
                  }).find("lda"),
                  std::string::npos);
    });
}

TESSERA_INSTANTIATE_PRECISIONS(TileOperands);

}  // namespace
}  // namespace tessera::test
