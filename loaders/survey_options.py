# ruff: noqa: E501
"""The answer options of the code-replicability review forms, as SKOS concepts.

One table serves the loaders (matching comma-joined multi-select answers, whose
labels may themselves contain commas) and ``ontology/survey.ttl`` (the SKOS schemes
are written from it; ``tests/ontology/test_survey_ontology.py`` checks the two agree).
Each option: ``(concept local name, label, definition, form labels / synonyms)``.
The first form label is the review form's text verbatim.
"""

from __future__ import annotations

from rdflib import URIRef

from reprokg.core.namespaces import RK

Option = tuple[str, str, str, tuple[str, ...]]

#: scheme local name -> (label, definition, options)
SCHEMES: dict[str, tuple[str, str, list[Option]]] = {
    "GraphicsTopicScheme": (
        "computer-graphics topics",
        "The six broad topics the code-replicability survey assigns each paper to.",
        [
            (
                "TopicRendering",
                "Rendering",
                "Light transport, real-time rendering, sampling, reflectance capture, intersection data structures, non-photorealistic rendering.",
                ("Rendering",),
            ),
            (
                "TopicAnimationSimulation",
                "Animation and simulation",
                "Character animation, motion capture, rigging, camera planning, deformable models, fluid, cloth, hair or sound simulation.",
                ("Animation and Simulation", "Animation"),
            ),
            (
                "TopicGeometry",
                "Geometry",
                "Geometry processing and modelling of points, voxels and meshes, topology, mapping, vector fields, shape collections, image-based modelling.",
                ("Geometry",),
            ),
            (
                "TopicImages",
                "Images",
                "Image and video processing, texture synthesis, segmentation, drawing and sketching, intrinsic decomposition, computational photography, image-based rendering.",
                ("Images", "Image"),
            ),
            (
                "TopicVirtualReality",
                "Virtual reality",
                "Virtual and augmented reality, 3D displays and interaction.",
                ("Virtual Reality",),
            ),
            (
                "TopicFabrication",
                "Fabrication",
                "3D printing, knitting, caustic design.",
                ("Fabrication",),
            ),
        ],
    ),
    "CodeAvailabilityScheme": (
        "code availability answers",
        "Answers to 'Is the code or software publicly available?'.",
        [
            (
                "CodeAvailable",
                "code available",
                "The authors' code or binary is publicly available.",
                ("Yes",),
            ),
            (
                "CodeNotAvailable",
                "code not available",
                "No code, binary or pseudo-code is available.",
                ("No",),
            ),
            (
                "PseudoCodeOnly",
                "pseudo-code only",
                "No code is available but the paper contains pseudo-code.",
                ("No but pseudo-code in the PDF", "No but code pseudo-code in the PDF"),
            ),
        ],
    ),
    "CodeHostingScheme": (
        "code hosting options",
        "Where the code of a paper was found.",
        [
            (
                "HostedOnCodePlatform",
                "on a code platform",
                "On GitHub, GitLab or another code platform.",
                ("on github, gitlab or other code platform",),
            ),
            (
                "HostedOnAuthorSite",
                "on the authors' site",
                "On the authors' web site or project page (zip file, direct download).",
                ("on the authors website or project page (zip file, direct download...)",),
            ),
            (
                "HostedInLibrary",
                "module of a library",
                "As a module or component of an existing open-source library or software.",
                ("as a module/component of an existing opensource library/software",),
            ),
            (
                "HostedOnSoftwareHeritage",
                "on Software Heritage",
                "Archived on Software Heritage.",
                ("on software heritage",),
            ),
        ],
    ),
    "SoftwareTypeScheme": (
        "software types",
        "The nature of the shared artefact: source code, binary, or partial code.",
        [
            (
                "SoftwareTypeCode",
                "source code",
                "Source code that must be compiled or interpreted.",
                ("Code",),
            ),
            (
                "SoftwareTypeBinary",
                "binary",
                "Binaries only, no access to the sources.",
                ("Binary",),
            ),
            (
                "SoftwareTypePartialCode",
                "partial code",
                "Code snippets, or code needing more source to build or run.",
                ("Partial Code",),
            ),
        ],
    ),
    "LanguageScheme": (
        "programming languages",
        "Main languages of shared code as the review form lists them.",
        [
            ("LanguageCpp", "C/C++", "C or C++.", ("C/C++", "C++", "C", "c++")),
            ("LanguagePython", "Python", "Python.", ("Python", "python")),
            (
                "LanguageMatlab",
                "Matlab / Mathematica",
                "Matlab, Mathematica or similar numerical environments.",
                ("Matlab / Mathematica / ..", "Matlab", "matlab", "Matlab , Mathematica , .."),
            ),
            (
                "LanguageShader",
                "shader language",
                "A GPU shader language (GLSL, HLSL, ...).",
                ("Shader language", "GLSL"),
            ),
            ("LanguageOther", "other language", "Another language.", ("Other",)),
        ],
    ),
    "CodeFilesScheme": (
        "code files",
        "Files the code comes with, from the form's 'Build info / instructions' question.",
        [
            ("HasReadme", "README", "A README file.", ("README",)),
            (
                "HasLicenseFile",
                "license stated",
                "A LICENSE file or an explicit license (e.g. in the readme or headers).",
                ("LICENSE or explicit license (e.g. in the readme / headers)",),
            ),
            (
                "HasAuthorsFile",
                "authors named",
                "An AUTHORS file or explicitly mentioned code authors.",
                ("AUTHORS or explicitly mentioned",),
            ),
            (
                "HasContributingFile",
                "contributing guide",
                "A CONTRIBUTING file or explicit contribution instructions.",
                ("CONTRIBUTING or explicitly mentions how to contribute to the code",),
            ),
            ("NoCodeFiles", "none", "None of README, LICENSE, AUTHORS, CONTRIBUTING.", ("None",)),
        ],
    ),
    "LicenseScheme": (
        "code licenses",
        "Common code licenses met in the survey; other license texts are kept as written.",
        [
            ("LicenseMIT", "MIT", "The MIT license.", ("MIT",)),
            ("LicenseGPL", "GPL", "The GNU General Public License.", ("GPL",)),
            ("LicenseLGPL", "LGPL", "The GNU Lesser General Public License.", ("LGPL",)),
            ("LicenseBSD", "BSD", "A BSD license.", ("BSD", "FreeBSD")),
            (
                "LicenseApache2",
                "Apache 2.0",
                "The Apache License 2.0.",
                (
                    "Apache License 2.0",
                    "Apache License version 2.0",
                    "Apache License Version 2.0",
                    "Apache",
                ),
            ),
            (
                "LicenseMPL",
                "Mozilla Public License",
                "The Mozilla Public License.",
                ("Mozilla Public License", "MPL", "MPL2", "Mozilla Public License, version 2.0"),
            ),
            (
                "LicenseCreativeCommons",
                "Creative Commons",
                "A Creative Commons license.",
                (
                    "Creative Commons",
                    "CC BY-NC-SA 4.0",
                    "Creative Commons Attribution-NonCommercial-ShareAlike 4.0 International",
                    "Creative Commons license:  Attribution-NonCommercial (CC BY-NC)",
                ),
            ),
            ("LicenseCustom", "custom license", "A license written for this code.", ("custom",)),
            ("LicenseCommercial", "commercial", "Commercial license.", ("Commercial",)),
            ("LicenseUnspecified", "unspecified", "No license is specified.", ("unspecified",)),
        ],
    ),
    "BuildMechanismScheme": (
        "build mechanisms",
        "How the code is configured and built.",
        [
            ("BuildMakefile", "Makefile", "A Makefile.", ("Makefile", "make")),
            (
                "BuildCMake",
                "CMake",
                "CMakeLists.",
                ("CMakeLists", "cmake", "CMake/Make", "CMake/make", "CMake,Make"),
            ),
            (
                "BuildIDEProject",
                "IDE project",
                "An IDE project (Visual Studio, ...).",
                ("IDE Project (VS,..)",),
            ),
            ("BuildSCons", "SCons", "SCons.", ("SCONS", "scons")),
            ("BuildPremake", "premake", "premake.", ("premake",)),
            ("BuildQmake", "qmake", "qmake.", ("qmake", "qmake .pro file")),
            ("BuildOtherScript", "other script", "Another build script.", ("Other script",)),
            (
                "BuildReadmeCommands",
                "commands in README",
                "Command-line instructions in the README.",
                ("Commandline instructions in README",),
            ),
            (
                "BuildNotApplicable",
                "not applicable",
                "No build step (interpreted code such as Python or Matlab).",
                ("Not applicable (python, Matlab..)", "N/A", "NA"),
            ),
            (
                "BuildNone",
                "none",
                "No build mechanism is provided.",
                ("None", "none", "none given"),
            ),
        ],
    ),
    "DependencyKindScheme": (
        "dependency kinds",
        "Kinds of mandatory software dependencies.",
        [
            (
                "DependencyOpenSource",
                "open source",
                "Open-source libraries (e.g. Eigen, OpenCV).",
                ("Open-source libraries",),
            ),
            (
                "DependencyClosedFree",
                "closed but free for research",
                "Closed-source (e.g. commercial) software or libraries free for research purposes (e.g. MOSEK, CUDA, Intel MKL).",
                (
                    "Closed source (e.g. commercial) software or libraries free for research purposes",
                ),
            ),
            (
                "DependencyPaywalled",
                "paywalled",
                "Closed-source software or libraries that must be paid for even for research (e.g. Matlab).",
                ("Paywall Closed source software or libraries",),
            ),
            ("DependencyNone", "none", "No mandatory dependency.", ("None",)),
        ],
    ),
    "DataKindScheme": (
        "data kinds",
        "The nature of data the code needs beyond examples.",
        [
            ("DataTraining", "training data", "Training data.", ("Training data",)),
            (
                "DataPretrained",
                "pre-trained models or hard-coded data",
                "Pre-trained models, hard-coded data, look-up tables.",
                (
                    "Pre-trained models / Hardcoded data / lookup tables /...",
                    "pretrained models",
                    "pretrained model",
                ),
            ),
        ],
    ),
    "DocumentationKindScheme": (
        "documentation kinds",
        "Kinds of documentation shipped with code.",
        [
            (
                "DocumentationUser",
                "user documentation",
                "User documentation (readme, notes, tutorial) beyond build instructions.",
                ("User-documentation (readme-note-tutorial) more than just build instructions",),
            ),
            ("DocumentationAPI", "API documentation", "API documentation.", ("API documentation",)),
            (
                "DocumentationTechnical",
                "technical documentation",
                "Technical documentation (comments, doxygen, ...).",
                ("Technical documentation (comments-doxygen...)",),
            ),
            ("DocumentationNone", "none", "No documentation.", ("None",)),
        ],
    ),
    "AffiliationKindScheme": (
        "author affiliation kinds",
        "Kinds of institutions a paper's authors come from.",
        [
            (
                "AffiliationAcademia",
                "academia",
                "A university or public institution.",
                ("Academia",),
            ),
            (
                "AffiliationIndustry",
                "private company",
                "A private company.",
                ("Private Companies",),
            ),
            ("AffiliationNone", "no affiliation", "No affiliation.", ("No affiliation",)),
        ],
    ),
    "PdfAvailabilityScheme": (
        "PDF availability",
        "Where a paper's PDF is available besides the ACM Digital Library.",
        [
            (
                "PdfOnOpenArchive",
                "open archive",
                "On arXiv or a similar open archive.",
                ("On an open archive arXiv or similar open archive",),
            ),
            (
                "PdfOnAuthorWebsite",
                "authors' website",
                "On the authors' or their institution's web site.",
                ("On the author(s) website or its institution",),
            ),
            (
                "PdfOnAuthorRepository",
                "authors' repository",
                "In the authors' repository (Dropbox, GitHub, Drive, iCloud).",
                ("On the author(s) repository (dropbox, github, drive, iCloud)",),
            ),
            (
                "PdfOther",
                "other",
                "Elsewhere (web, ResearchGate, Semantic Scholar, ...).",
                ("Other (web, research gate, semantic scholar,...)",),
            ),
        ],
    ),
    "TestFailureScheme": (
        "test failure reasons",
        "Why a complete replicability test could not be performed.",
        [
            (
                "FailureTechnicalIssue",
                "technical issue",
                "A technical issue (dependencies, build, crash) stopped the test.",
                ("No due to technical issue",),
            ),
            (
                "FailureMissingHardware",
                "missing hardware",
                "Specific hardware or software that was not available was needed.",
                ("No due to missing specific hardware",),
            ),
        ],
    ),
    "ResearchTypeScheme": (
        "research types",
        "Whether a paper is empirical (experimental) or theoretical (Gundersen & Kjensmo 2018).",
        [
            (
                "ResearchExperimental",
                "experimental",
                "An empirical paper with experiments.",
                ("E",),
            ),
            ("ResearchTheoretical", "theoretical", "A theoretical paper.", ("T",)),
        ],
    ),
}

#: answers meaning "the reviewer could not tell"; recorded with rk:notAnswered
CANNOT_ANSWER = "Cannot answer"


def concept(name: str) -> URIRef:
    return RK[name]


def labels(scheme: str) -> dict[str, str]:
    """Form label / synonym -> concept local name, for one scheme."""
    out: dict[str, str] = {}
    for name, _label, _definition, forms in SCHEMES[scheme][2]:
        for form in forms:
            out[form] = name
    return out


def split_options(text: str, scheme: str) -> tuple[list[str], list[str]]:
    """A comma-joined multi-select answer -> (concept names, unmatched segments).

    Labels may contain ", " themselves, so the answer is never split blindly: at each
    position the longest known label that is followed by ``,`` or the end wins; only
    when none fits is the text up to the next comma taken as one unknown segment.
    ``Cannot answer`` is returned as an unmatched segment for the caller to record.
    """
    known = labels(scheme)
    by_len = sorted(known, key=len, reverse=True)
    lowered = {k.lower(): v for k, v in known.items()}
    found: list[str] = []
    unknown: list[str] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in ", ":
            i += 1
        if i >= n:
            break
        for lab in by_len:
            end = i + len(lab)
            if text.startswith(lab, i) and (end == n or text[end] == ","):
                if known[lab] not in found:
                    found.append(known[lab])
                i = end
                break
        else:
            end = text.find(",", i)
            end = n if end < 0 else end
            seg = text[i:end].strip()
            hit = lowered.get(seg.lower())
            if hit is not None:
                if hit not in found:
                    found.append(hit)
            elif seg:
                unknown.append(seg)
            i = end
    return found, unknown
