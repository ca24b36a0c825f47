#pragma once
/// @file nn.hpp
/// Week 3 in one include: modules, layers, containers and initialisation.

#include <kindling/activation.hpp>
#include <kindling/activation_recorder.hpp>
#include <kindling/autograd.hpp>
#include <kindling/batchnorm.hpp>
#include <kindling/container.hpp>
#include <kindling/conv.hpp>
#include <kindling/dropout.hpp>
#include <kindling/functional.hpp>
#include <kindling/init.hpp>
#include <kindling/layout.hpp>
#include <kindling/linear.hpp>
#include <kindling/module.hpp>
#include <kindling/pooling.hpp>
#include <kindling/recurrent.hpp>
#include <kindling/upsample.hpp>
