// Run-time errors of the reference evaluator and of host_tensor: typed, naming the tensor and shapes.
#include <string>
#include <vector>

#include "support/tensors.hpp"

namespace {

ctf::host_tensor<float> zeros(ctf::dims_t dims) { return test::filled(std::move(dims), 0.0f); }

// Whether `text` occurs in `message`, with the message shown on failure.
::testing::AssertionResult mentions(const std::string& message, const std::string& text) {
    if (message.find(text) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "'" << message << "' does not mention '" << text << "'";
}

}  // namespace

TEST(MissingTensor, ThrowsTypedError) {
    auto a = ctf::input<"a", 2, 3>();
    auto b = ctf::weight<"b", 3, 2>();
    ctf::tensor_map in{{"a", zeros({2, 3})}};
    EXPECT_THROW((void)ctf::reference::evaluate(ctf::matmul(a, b), in), ctf::missing_tensor);
    EXPECT_THROW((void)ctf::reference::evaluate(ctf::matmul(a, b), in), ctf::error);  // the common base
}

TEST(MissingTensor, NamesTheTensorAndItsShape) {
    auto a = ctf::input<"a", 2, 3>();
    auto b = ctf::weight<"W_q.weight", 3, 2>();
    ctf::tensor_map in{{"a", zeros({2, 3})}};
    try {
        (void)ctf::reference::evaluate(ctf::matmul(a, b), in);
        FAIL() << "expected ctf::missing_tensor";
    } catch (const ctf::missing_tensor& e) {
        EXPECT_EQ(e.tensor(), "W_q.weight");
        EXPECT_TRUE(mentions(e.what(), "'W_q.weight'"));
        EXPECT_TRUE(mentions(e.what(), "[_3,_2]"));
    }
}

TEST(MissingTensor, ShowsTheBatchExtentAsB) {
    auto x = ctf::input<"x", ctf::batch, 4>();
    ctf::tensor_map in;
    try {
        (void)ctf::reference::evaluate(ctf::relu(x), in);
        FAIL() << "expected ctf::missing_tensor";
    } catch (const ctf::missing_tensor& e) {
        EXPECT_EQ(e.tensor(), "x");
        EXPECT_TRUE(mentions(e.what(), "[B,_4]"));
    }
}

TEST(ShapeMismatch, ThrowsTypedError) {
    auto a = ctf::input<"a", 2, 3>();
    ctf::tensor_map in{{"a", zeros({3, 2})}};
    EXPECT_THROW((void)ctf::reference::evaluate(ctf::relu(a), in), ctf::shape_mismatch);
    EXPECT_THROW((void)ctf::reference::evaluate(ctf::relu(a), in), ctf::error);
}

TEST(ShapeMismatch, NamesTheTensorExpectedAndFoundShapes) {
    auto a = ctf::input<"a", 2, 3>();
    ctf::tensor_map in{{"a", zeros({3, 2})}};
    try {
        (void)ctf::reference::evaluate(ctf::relu(a), in);
        FAIL() << "expected ctf::shape_mismatch";
    } catch (const ctf::shape_mismatch& e) {
        EXPECT_EQ(e.tensor(), "a");
        EXPECT_TRUE(mentions(e.what(), "'a'"));
        EXPECT_TRUE(mentions(e.what(), "[_2,_3]"));  // expected
        EXPECT_TRUE(mentions(e.what(), "[3,2]"));    // found
    }
}

TEST(ShapeMismatch, WrongRankIsReported) {
    auto w = ctf::weight<"w", 2, 3>();
    ctf::tensor_map in{{"w", zeros({6})}};
    try {
        (void)ctf::reference::evaluate(ctf::relu(w), in);
        FAIL() << "expected ctf::shape_mismatch";
    } catch (const ctf::shape_mismatch& e) {
        EXPECT_EQ(e.tensor(), "w");
        EXPECT_TRUE(mentions(e.what(), "[_2,_3]"));
        EXPECT_TRUE(mentions(e.what(), "[6]"));
    }
}

TEST(ShapeMismatch, BatchedInputWithWrongStaticExtent) {
    auto x = ctf::input<"x", ctf::batch, 2, 3>();
    ctf::tensor_map in{{"x", zeros({5, 2, 4})}};
    try {
        (void)ctf::reference::evaluate(ctf::relu(x), in);
        FAIL() << "expected ctf::shape_mismatch";
    } catch (const ctf::shape_mismatch& e) {
        EXPECT_EQ(e.tensor(), "x");
        EXPECT_TRUE(mentions(e.what(), "[B,_2,_3]"));
        EXPECT_TRUE(mentions(e.what(), "[5,2,4]"));
    }
}

TEST(ShapeMismatch, BatchSizesMustAgree) {
    auto x = ctf::input<"x", ctf::batch, 2>();
    auto y = ctf::input<"y", ctf::batch, 2>();
    ctf::tensor_map in{{"x", zeros({2, 2})}, {"y", zeros({3, 2})}};
    EXPECT_THROW((void)ctf::reference::evaluate(x + y, in), ctf::shape_mismatch);
}

TEST(ShapeMismatch, BatchDisagreementNamesTheBatchAndTheTensor) {
    auto x = ctf::input<"x", ctf::batch, 2>();
    auto y = ctf::input<"y", ctf::batch, 2>();
    ctf::tensor_map in{{"x", zeros({2, 2})}, {"y", zeros({3, 2})}};
    try {
        (void)ctf::reference::evaluate(x + y, in);
        FAIL() << "expected ctf::shape_mismatch";
    } catch (const ctf::shape_mismatch& e) {
        // Which operand is read first (and so sets B) is the order the evaluator reads operands in;
        // either way the other one is blamed, against the batch the first one set.
        const std::string msg = e.what();
        if (e.tensor() == "y") {
            EXPECT_TRUE(mentions(msg, "'y'"));
            EXPECT_TRUE(mentions(msg, "[B,_2] with B=2"));
            EXPECT_TRUE(mentions(msg, "[3,2]"));
        } else {
            EXPECT_EQ(e.tensor(), "x");
            EXPECT_TRUE(mentions(msg, "'x'"));
            EXPECT_TRUE(mentions(msg, "[B,_2] with B=3"));
            EXPECT_TRUE(mentions(msg, "[2,2]"));
        }
    }
}

TEST(HostTensor, DataSizeMustMatchDims) {
    EXPECT_THROW(ctf::host_tensor<float>({2, 3}, {1, 2, 3}), ctf::error);
    EXPECT_THROW(ctf::host_tensor<double>({2}, {1, 2, 3}), ctf::error);
    EXPECT_NO_THROW(ctf::host_tensor<float>({2, 3}, {1, 2, 3, 4, 5, 6}));
}

TEST(HostTensor, SizeErrorStatesCountAndShape) {
    try {
        ctf::host_tensor<float> t({2, 3}, {1, 2, 3});
        FAIL() << "expected ctf::error";
    } catch (const ctf::error& e) {
        EXPECT_TRUE(mentions(e.what(), "3 values"));
        EXPECT_TRUE(mentions(e.what(), "[2,3]"));
    }
}
