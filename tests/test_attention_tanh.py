"""The additive score's tanh (paragen.models.attention._tanh_in_place): torch's ``tanh_`` with gradients (training),
2σ(2x) − 1 in place without them on the CPU (search and validation, where torch's tanh kernel is the slow one),
both within float rounding of math.tanh over the range a score meets, saturated ends included."""

import math

import torch

from paragen.models.attention import _tanh_in_place

VALUES = [-20.0, -3.0, -0.5, -1e-4, 0.0, 1e-4, 0.5, 3.0, 20.0]


def test_without_gradients_on_the_cpu_it_is_two_sigmoids_of_twice_x_minus_one_in_place():
    x = torch.tensor(VALUES)
    with torch.no_grad():
        result = _tanh_in_place(x)
    assert result is x  # in place: the score's fresh sum is overwritten, no new tensor
    assert torch.equal(result, 2 * torch.sigmoid(2 * torch.tensor(VALUES)) - 1)  # this formula, not torch.tanh
    for got, value in zip(result.tolist(), VALUES):
        assert abs(got - math.tanh(value)) <= 3e-7, value


def test_with_gradients_it_is_torchs_tanh_and_differentiable():
    leaf = torch.tensor(VALUES, requires_grad=True)
    x = leaf * 1.0  # a non-leaf, as the score's sum is
    result = _tanh_in_place(x)
    assert result is x
    assert torch.equal(result.detach(), torch.tanh(torch.tensor(VALUES)))  # torch's own kernel, bit for bit
    result.sum().backward()
    for grad, value in zip(leaf.grad.tolist(), VALUES):
        assert abs(grad - (1 - math.tanh(value) ** 2)) <= 1e-6, value
