"""A character decoder that spells the words a word-level decoder can only call ``<unk>``.

The simplification report's NMT baseline "did include the character decoder" (003 §4.3.1): Luong &
Manning (2016)'s hybrid model as CS224n's assignment builds it. Where the word decoder's gold (training)
or output (decoding) is ``<unk>``, an LSTM over characters, whose initial hidden and cell states are the
word decoder's attentional vector h̃_t at that position, is trained to spell the word and, at decoding
time, spells one greedily. Characters are UTF-8 bytes, so the inventory is fixed (256 bytes plus start,
end and padding) and nothing beyond the weights has to be saved with a model.
"""

from __future__ import annotations

import torch
from torch import nn

from paragen.models.state import float32_recurrence

BYTES = 256
START, END, PAD = BYTES, BYTES + 1, BYTES + 2
INVENTORY = BYTES + 3


def spell_ids(word: str) -> list[int]:
    """<start> + the word's UTF-8 bytes + <end>."""
    return [START, *word.encode("utf-8"), END]


class CharDecoder(nn.Module):
    """LSTM over byte embeddings, started from the word decoder's attentional vector."""

    def __init__(self, hidden_size: int, embedding_size: int = 50):
        super().__init__()
        self.embedding = nn.Embedding(INVENTORY, embedding_size, padding_idx=PAD)
        self.lstm = nn.LSTM(embedding_size, hidden_size, batch_first=True)
        self.projection = nn.Linear(hidden_size, INVENTORY)

    def _initial(self, start: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(h_0, c_0) = (h̃_t, h̃_t), as CS224n's hybrid decoder starts it; shapes (1, n, hidden)."""
        state = start.unsqueeze(0).float()
        return state, state

    def _recur(self, ids: torch.Tensor, state: tuple[torch.Tensor, torch.Tensor]
               ) -> tuple[torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        """The LSTM over the bytes ``ids`` (n, steps) from ``state``: outputs (n, steps, hidden) and the last state,
        in float32 even under bf16 autocast, like every recurrence here (decoders.py, encoders.py); the projection
        after it keeps bf16."""
        with float32_recurrence(ids):
            return self.lstm(self.embedding(ids).float(), state)

    def loss(self, words: list[str], start: torch.Tensor) -> tuple[torch.Tensor, int]:
        """Summed negative log-likelihood of spelling each word (every byte and <end>), and the count of symbols.

        ``start`` (n, hidden): the attentional vector at each word's position.
        """
        spelled = [spell_ids(w) for w in words]
        length = max(len(s) for s in spelled)
        ids = torch.full((len(words), length), PAD, dtype=torch.long, device=start.device)
        for row, s in enumerate(spelled):
            ids[row, : len(s)] = torch.tensor(s, device=start.device)
        outputs, _ = self._recur(ids[:, :-1], self._initial(start))
        logits = self.projection(outputs)
        gold = ids[:, 1:]
        nll = nn.functional.cross_entropy(logits.reshape(-1, INVENTORY).float(), gold.reshape(-1), ignore_index=PAD,
                                          reduction="sum")
        return nll, int((gold != PAD).sum())

    @torch.no_grad()
    def spell(self, start: torch.Tensor, max_length: int = 21) -> list[str]:
        """Greedy spelling of one word per row of ``start`` (n, hidden); at most ``max_length`` bytes each."""
        n = start.size(0)
        state = self._initial(start)
        current = torch.full((n, 1), START, dtype=torch.long, device=start.device)
        spelled: list[list[int]] = [[] for _ in range(n)]
        done = [False] * n
        for _ in range(max_length):
            output, state = self._recur(current, state)
            scores = self.projection(output[:, -1])
            scores[:, [START, PAD]] = float("-inf")  # never emitted
            current = scores.argmax(-1, keepdim=True)
            for row, symbol in enumerate(current.squeeze(1).tolist()):
                if done[row]:
                    continue
                if symbol == END:
                    done[row] = True
                else:
                    spelled[row].append(symbol)
            if all(done):
                break
        return [bytes(s).decode("utf-8", errors="replace") for s in spelled]
