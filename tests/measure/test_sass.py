"""The SASS opcode histogram that the benchmarks and notebooks read instruction mixes with."""
from rooflinelib.measure.sass import opcode_histogram

LOOP = """
        /*0000*/                   MOV R1, c[0x0][0x28] ;
        /*0010*/              @!P0 FFMA R3, R2, R5, R3 ;
        /*0020*/                   FFMA R4, R2, R5, R4 ;
        /*0030*/               @P1 IADD3 R6, R6, 0x1, RZ ;
        /*0040*/                   ISETP.GE.AND P1, PT, R6, 0x10, PT ;
        /*0050*/                   NOP ;
        /*0060*/              @!UP0 BRA `(.L_x_1) ;
"""


def test_counts_opcodes_behind_predicates_and_leaves_out_nops():
    assert opcode_histogram(LOOP) == {"FFMA": 2, "MOV": 1, "IADD3": 1, "ISETP.GE.AND": 1, "BRA": 1}


def test_most_frequent_first_and_dict_input_joined():
    hist = opcode_histogram({"kernel_a": LOOP, "kernel_b": LOOP})
    assert list(hist)[0] == "FFMA" and hist["FFMA"] == 4


def test_text_without_instructions_gives_an_empty_histogram():
    assert opcode_histogram("// no code here\n.headerflags @\"EF_CUDA_SM90\"") == {}
