#!/usr/bin/python3
"""The PyTorch peer of bench/bert_bench.cc, in eval mode under torch.inference_mode():
  eager   Hugging Face's BertModel as tests/data/make_golden.py writes it (its names and computation),
          on the batch padded to its longest sequence, as a Hugging Face user runs it;
  nested  the same geometry as nn.TransformerEncoder (post-LN, gelu, eps 1e-12) with
          enable_nested_tensor=True: PyTorch's fast path packs the batch and skips the padding.
Lengths from CTFORMER_BERT_LENGTHS / CTFORMER_MINILM_LENGTHS (bench/bert.sh); OpenBLAS named for the
core as in bench/pytorch_peer.py. Prints one line per case: name, threads, ms, sequences/s.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "data"))
import pytorch_peer  # noqa: E402,F401  (sets OPENBLAS_CORETYPE before torch loads)
import torch  # noqa: E402
from make_golden import BertModel, sentence_embedding  # noqa: E402
from pytorch_mixed import median_ms  # noqa: E402


def config(d, heads, d_ff, layers):
    return dict(model_type="bert", vocab_size=30522, hidden_size=d, num_attention_heads=heads, intermediate_size=d_ff,
                num_hidden_layers=layers, max_position_embeddings=512, type_vocab_size=2, layer_norm_eps=1e-12,
                hidden_act="gelu", pad_token_id=0)


class NestedBert(torch.nn.Module):
    """The embeddings and pooler of BertModel around nn.TransformerEncoder's fast path."""

    def __init__(self, c):
        super().__init__()
        self.bert = BertModel(c)
        layer = torch.nn.TransformerEncoderLayer(c["hidden_size"], c["num_attention_heads"], c["intermediate_size"],
                                                 dropout=0.0, activation="gelu", layer_norm_eps=1e-12, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, c["num_hidden_layers"], enable_nested_tensor=True)

    def forward(self, input_ids, attention_mask):
        e, ids = self.bert.embeddings, input_ids
        positions = torch.arange(ids.shape[1]).expand_as(ids)
        x = e.LayerNorm(e.word_embeddings(ids) + e.token_type_embeddings(torch.zeros_like(ids)) + e.position_embeddings(positions))
        h = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        return h.to_padded_tensor(0.0) if h.is_nested else h


def batch(lengths):
    longest = max(lengths)
    mask = (torch.arange(longest)[None, :] < torch.tensor(lengths)[:, None]).long()
    return torch.randint(1, 30522, mask.shape) * mask, mask


def main():
    bert_lengths = [int(n) for n in os.environ.get("CTFORMER_BERT_LENGTHS", "77 20 119 53 128 16 98 41").split()]
    minilm_lengths = [int(n) for n in os.environ.get("CTFORMER_MINILM_LENGTHS", " ".join(["36"] * 64)).split()]
    base, minilm = config(768, 12, 3072, 12), config(384, 12, 1536, 6)
    pooled = lambda model: lambda ids, mask: model(ids, mask)[1]
    sentences = lambda model: lambda ids, mask: sentence_embedding(model(ids, mask)[0], mask)
    nested_pooled = lambda model: lambda ids, mask: torch.tanh(model.bert.pooler.dense(model(ids, mask)[:, 0]))
    nested_sentences = lambda model: lambda ids, mask: sentence_embedding(model(ids, mask), mask)
    cases = [("bert/pooled", base, bert_lengths, pooled, nested_pooled),
             ("minilm/sentences", minilm, minilm_lengths, sentences, nested_sentences),
             ("minilm/single16", minilm, [16], sentences, nested_sentences)]
    for name, c, lengths, eager_run, nested_run in cases:
        ids, mask = batch(lengths)
        for kind, model, run in [("eager", BertModel(c).eval(), eager_run), ("nested", NestedBert(c).eval(), nested_run)]:
            for threads in (1, 2):
                torch.set_num_threads(threads)
                with torch.inference_mode():
                    ms = median_ms(lambda: run(model)(ids, mask), repetitions=3, min_seconds=1.0)
                print("pytorch/%s/%s threads:%d %.2f ms %.1f sequences/s" % (kind, name, threads, ms, len(lengths) / ms * 1e3))


if __name__ == "__main__":
    main()
