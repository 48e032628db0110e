//! `soapstone-serve`: the same as `soapstone serve`, built with this crate alone, so that the
//! crate's own tests (the crash test kills it with SIGKILL) need not build the whole CLI.

use clap::Parser;

#[derive(Debug, Parser)]
#[command(
    name = "soapstone-serve",
    version,
    about = "Serve the seeds' services (same as `soapstone serve`)"
)]
struct Cli {
    #[command(flatten)]
    args: soapstone_services::ServeArgs,
}

fn main() -> std::process::ExitCode {
    let cli = Cli::parse();
    let args = match cli.args.resolve() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("soapstone-serve: {e:#}");
            return std::process::ExitCode::from(2);
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("soapstone-serve: cannot start the runtime: {e}");
            return std::process::ExitCode::from(70);
        }
    };
    match runtime.block_on(soapstone_services::run_serve(args)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("soapstone-serve: {e:#}");
            std::process::ExitCode::from(1)
        }
    }
}
