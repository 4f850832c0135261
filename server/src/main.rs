fn main() -> std::process::ExitCode {
    cuda_offload::cli::main()
}
