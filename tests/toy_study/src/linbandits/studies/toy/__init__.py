"""A toy study: uniform exploration on a two-armed linear instance. It exists to
prove the study contract (tests/test_adding_a_study.py): copied into a fresh
copy of the repository, it runs through the real pipeline touching no file of
another study, with no rules file of its own; it has the skeleton every study
has (tests/test_study_layout.py)."""
from linbandits.study import Study

_P = "linbandits.studies.toy"

STUDY = Study(
    name="toy",
    paper="A toy paper: uniform exploration finds the better of two arms",
    algorithms={"Toy-Uniform": f"{_P}.algorithms:ToyUniform"},
    families={"toy_two_arms": f"{_P}.instances:toy_two_arms"},
    products=f"{_P}.products:products",
    columns=("recommended", "correct"),
)
