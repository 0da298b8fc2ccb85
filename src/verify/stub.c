/* placeholder until the verifier lands */
typedef int cgs_verify_placeholder;
