"""The CPU GRU cell with its hand-written backward (paragen.models.cells) is nn.GRUCell's function: same output, same
gradients for every input and parameter (torch's own autograd of nn.GRUCell is the reference), and its backward
passes torch's numerical gradient check in float64."""

import torch

from paragen.models.cells import _GRUCellFunction, gru_cell


def _cell_and_inputs(dtype):
    torch.manual_seed(7)
    cell = torch.nn.GRUCell(5, 4).to(dtype)  # distinct random weights and biases (not identity, not shared)
    x = torch.randn(3, 5, dtype=dtype, requires_grad=True)
    h = torch.randn(3, 4, dtype=dtype, requires_grad=True)
    return cell, x, h


def test_output_and_every_gradient_equal_nn_grucell():
    cell, x, h = _cell_and_inputs(torch.float32)
    weights = torch.randn(3, 4)  # a loss that weighs each output differently, so no gradient is symmetric
    reference = cell(x, h)
    reference_grads = torch.autograd.grad((reference * weights).sum(), [x, h, *cell.parameters()])
    ours = gru_cell(cell, x, h)
    grads = torch.autograd.grad((ours * weights).sum(), [x, h, *cell.parameters()])
    torch.testing.assert_close(ours, reference, atol=1e-6, rtol=0)
    for name, got, expected in zip(["x", "h", "weight_ih", "weight_hh", "bias_ih", "bias_hh"], grads,
                                   reference_grads):
        torch.testing.assert_close(got, expected, atol=1e-5, rtol=0, msg=f"gradient of {name}")


def test_backward_passes_the_numerical_gradient_check():
    cell, x, h = _cell_and_inputs(torch.float64)
    assert torch.autograd.gradcheck(_GRUCellFunction.apply,
                                    (x, h, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh))


def test_only_the_gradients_asked_for_are_computed():
    cell, x, h = _cell_and_inputs(torch.float32)
    h = h.detach()
    gru_cell(cell, x, h).sum().backward()
    assert h.grad is None and x.grad is not None and cell.weight_hh.grad is not None


def test_the_decoder_steps_its_gru_through_the_cpu_cell_and_keeps_the_checkpoint_layout(monkeypatch):
    import paragen.models.cells as cells
    from paragen.config import ModelConfig
    from paragen.models import build_model

    model = build_model(ModelConfig(architecture="rnnsearch", embedding_size=6, hidden_size=4, cell="gru",
                                    decoder_layers=2), 20)
    assert isinstance(model.decoder.cell, cells.GRUCell) and isinstance(model.decoder.upper[0], cells.GRUCell)
    assert list(model.decoder.cell.state_dict()) == list(torch.nn.GRUCell(12, 4).state_dict())  # old checkpoints load
    calls = []
    original = cells._GRUCellFunction.apply
    monkeypatch.setattr(cells._GRUCellFunction, "apply", lambda *a: calls.append(1) or original(*a))
    model.decoder.cell(torch.randn(2, model.decoder.cell.input_size), torch.randn(2, 4))
    assert calls == [1]


def test_the_form_traced_under_torch_compile_passes_the_same_checks(monkeypatch):
    """Under torch.compile the backward concatenates the gate gradients (dynamo cannot trace ``out=`` into column
    views); that form must pass the same gradient check, and the hidden-side cell (precomputed input gates) too."""
    from paragen.models.cells import _GRUHidden

    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    cell, x, h = _cell_and_inputs(torch.float64)
    assert torch.autograd.gradcheck(_GRUCellFunction.apply,
                                    (x, h, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh))
    gates = torch.randn(3, 12, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda g, s, w, b: _GRUHidden.apply(g, s, w, b, None),
                                    (gates, h, cell.weight_hh, cell.bias_hh))


def test_the_hidden_side_cell_is_nn_grucell_given_its_input_gates():
    """gru_hidden(W_ih x + b_ih, h) is nn.GRUCell(x, h), and its gradients flow to the gates, h, W_hh and b_hh."""
    from paragen.models.cells import _GRUHidden, gru_hidden

    cell, x, h = _cell_and_inputs(torch.float32)
    gates = torch.nn.functional.linear(x, cell.weight_ih, cell.bias_ih)
    torch.testing.assert_close(gru_hidden(gates, h, cell.weight_hh, cell.bias_hh), cell(x, h), atol=1e-6, rtol=0)
    cell64, x64, h64 = _cell_and_inputs(torch.float64)
    gates64 = torch.nn.functional.linear(x64, cell64.weight_ih, cell64.bias_ih).detach().requires_grad_()
    assert torch.autograd.gradcheck(lambda g, s, w, b: _GRUHidden.apply(g, s, w, b, None),
                                    (gates64, h64, cell64.weight_hh, cell64.bias_hh))
