# Reference analysis of a stability study with lme4 + lmerTest (the paper's tools).
#
# Usage: Rscript stability.R JOBS.tsv
#   JOBS.tsv  one analysis per line, tab-separated, no header:
#             NAME  DATA.csv  REML|ML  PAIRS  REPS  default|tight
#   DATA.csv  columns value, experiment, seed, repeat (other columns ignored)
#   PAIRS     "a|b;c|d" rerun pairs (contrast a - b), or "-" for none
#   REPS      how many times to time the whole analysis (>= 1)
#   default   lmer's default optimizer settings (nloptwrap BOBYQA, xtol_abs = ftol_abs = 1e-8)
#   tight     the same optimizer run to convergence (xtol_abs 1e-12, ftol_abs 1e-15), so
#             that R's numbers are the exact optimum rather than where BOBYQA stopped
#
# All jobs run in this one R process (loading lme4 + lmerTest costs seconds; the tests hand
# over every data set at once). For each job it prints "job NAME", tab-separated records with
# numbers to 17 significant digits (fixef, vc, theta, loglik, singular, ranova, anova,
# contrast, time) and "end NAME"; an R error inside a job prints "error MESSAGE" instead of
# records and the next job runs.

args <- commandArgs(trailingOnly = TRUE)
jobs <- read.delim(args[1], header = FALSE, sep = "\t", quote = "", colClasses = "character",
                   col.names = c("name", "csv", "method", "pairs", "reps", "mode"))

invisible(Sys.setlocale("LC_COLLATE", "C"))  # sorted = code-point order, as Python's sorted()
suppressPackageStartupMessages({
  library(lme4)
  library(lmerTest)
})

num <- function(x) ifelse(is.na(x), "NA", sprintf("%.17g", x))
out <- function(...) cat(paste(..., sep = "\t"), "\n", sep = "")
lab <- function(x) gsub("rpt", "repeat", gsub(" ", "", x), fixed = TRUE)

run_job <- function(csv, reml, pairs_arg, reps, tight) {
  ctrl <- if (tight) {
    lmerControl(optCtrl = list(xtol_abs = 1e-12, ftol_abs = 1e-15, maxeval = 1e5))
  } else lmerControl()
  d <- read.csv(csv, stringsAsFactors = FALSE, check.names = FALSE)
  d$experiment <- factor(d$experiment, levels = sort(unique(as.character(d$experiment))))
  d$seed <- factor(d$seed)
  d$rpt <- factor(d[["repeat"]])  # `repeat` is a reserved word in R
  # lmerTest's ranova/anova refit through update(), which evaluates the call's names (d,
  # form, REML = reml, control = ctrl) outside this function: they live in the global env
  assign("d", d, envir = .GlobalEnv)

  # The model of eq. 5; a random term whose factor has one level (lme4 stops) or a level
  # per row is left out, and with one experiment the fixed part is the intercept alone --
  # the same choices as reprokg's analysis, so that its edge cases can be checked here too.
  fixed <- if (nlevels(d$experiment) > 1) "experiment" else "1"
  re_ok <- function(f) nlevels(f) >= 2 && nlevels(f) < nrow(d)
  re <- c(if (re_ok(d$seed)) "(1 | seed)", if (re_ok(d$rpt)) "(1 | rpt)")
  form <- as.formula(paste("value ~", paste(c(fixed, re), collapse = " + ")), env = .GlobalEnv)
  assign("form", form, envir = .GlobalEnv)
  assign("ctrl", ctrl, envir = .GlobalEnv)
  assign("reml", reml, envir = .GlobalEnv)
  pairs <- if (pairs_arg == "-") list() else {
    strsplit(strsplit(pairs_arg, ";")[[1]], "|", fixed = TRUE)
  }

  analyse <- function() {
    if (length(re) == 0) {
      # No estimable random term left: the linear model (what lmerTest's ranova uses too).
      m <- lm(form, data = d)
      return(list(m = m, sm = summary(m), at = if (fixed == "1") NULL else anova(m)))
    }
    m <- lmer(form, data = d, REML = reml, control = ctrl)
    sm <- summary(m)
    rt <- ranova(m)
    at <- if (nlevels(d$experiment) > 1) anova(m) else NULL
    ct <- NULL
    if (length(pairs) > 0) {
      cn <- names(fixef(m))
      L <- matrix(0, nrow = length(pairs), ncol = length(cn), dimnames = list(NULL, cn))
      for (i in seq_along(pairs)) {
        a <- paste0("experiment", pairs[[i]][1])
        b <- paste0("experiment", pairs[[i]][2])
        if (a %in% cn) L[i, a] <- 1
        if (b %in% cn) L[i, b] <- -1
      }
      ct <- contest(m, L, joint = FALSE, confint = TRUE)
    }
    list(m = m, sm = sm, rt = rt, at = at, ct = ct)
  }

  times <- numeric(reps)
  for (i in seq_len(reps)) {
    t0 <- proc.time()[["elapsed"]]
    res <- analyse()
    times[i] <- proc.time()[["elapsed"]] - t0
  }

  m <- res$m
  if (inherits(m, "lm")) {
    out("n", nobs(m))
    out("singular", FALSE)
    out("sigma", num(sigma(m)))
    out("loglik", num(as.numeric(logLik(m, REML = reml))))
    cf <- res$sm$coefficients
    for (i in seq_len(nrow(cf))) {
      out("fixef", rownames(cf)[i], num(cf[i, 1]), num(cf[i, 2]), num(df.residual(m)),
          num(cf[i, 3]), num(cf[i, 4]))
    }
    out("vc", "Residual", num(sigma(m)^2), num(sigma(m)))
    if (!is.null(res$at)) {
      a <- res$at
      out("anova", "experiment", num(a[["Sum Sq"]][1]), num(a[["Mean Sq"]][1]), num(a$Df[1]),
          num(a$Df[2]), num(a[["F value"]][1]), num(a[["Pr(>F)"]][1]))
    }
    out("time", paste(num(times), collapse = "\t"))
    return(invisible(NULL))
  }
  out("n", nobs(m))
  out("singular", isSingular(m))
  out("theta", paste(num(getME(m, "theta")), collapse = "\t"))
  out("sigma", num(sigma(m)))
  out("loglik", num(as.numeric(logLik(m))))
  cf <- res$sm$coefficients
  for (i in seq_len(nrow(cf))) {
    out("fixef", rownames(cf)[i], num(cf[i, "Estimate"]), num(cf[i, "Std. Error"]),
        num(cf[i, "df"]), num(cf[i, "t value"]), num(cf[i, "Pr(>|t|)"]))
  }
  vc <- as.data.frame(VarCorr(m))
  for (i in seq_len(nrow(vc))) out("vc", lab(vc$grp[i]), num(vc$vcov[i]), num(vc$sdcor[i]))
  rt <- res$rt
  for (i in seq_len(nrow(rt))) {
    out("ranova", lab(rownames(rt)[i]), num(rt$npar[i]), num(rt$logLik[i]),
        num(rt$AIC[i]), num(rt$LRT[i]), num(rt$Df[i]), num(rt[["Pr(>Chisq)"]][i]))
  }
  if (!is.null(res$at)) {
    a <- res$at
    for (i in seq_len(nrow(a))) {
      out("anova", rownames(a)[i], num(a[["Sum Sq"]][i]), num(a[["Mean Sq"]][i]),
          num(a$NumDF[i]), num(a$DenDF[i]), num(a[["F value"]][i]), num(a[["Pr(>F)"]][i]))
    }
  }
  if (!is.null(res$ct)) {
    ct <- res$ct
    nm <- vapply(pairs, function(p) paste(p[1], "-", p[2]), "")
    for (i in seq_len(nrow(ct))) {
      out("contrast", nm[i], num(ct$Estimate[i]), num(ct[["Std. Error"]][i]), num(ct$df[i]),
          num(ct[["t value"]][i]), num(ct$lower[i]), num(ct$upper[i]), num(ct[["Pr(>|t|)"]][i]))
    }
  }
  out("time", paste(num(times), collapse = "\t"))
}

for (j in seq_len(nrow(jobs))) {
  job <- jobs[j, ]
  out("job", job$name)
  tryCatch(
    run_job(job$csv, toupper(job$method) == "REML", job$pairs, as.integer(job$reps),
            job$mode == "tight"),
    error = function(e) out("error", gsub("[\t\n]", " ", conditionMessage(e)))
  )
  out("end", job$name)
}
